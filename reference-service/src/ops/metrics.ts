import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../store/db.js';
import { FAILURES_BEFORE_PAUSE } from '../store/queries/deliveries-claim.js';

/** Request latencies of an API answered from one or two round trips: most buckets sit below 100 ms. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** A receiver's answer time, up to the outbound total timeout (10 s by default). */
const DELIVERY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const STATEMENT_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1];

/**
 * Every figure the service exposes on `/metrics` (see ops/metrics-server.ts), in one registry of its own
 * (two services in one process, as in the tests, never share counters). Counters are this process's;
 * the outbox and endpoint figures are read from the database at scrape time, so they are the same on
 * every instance of a shared PostgreSQL database.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  readonly requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'API requests answered, by operation, method and status',
    labelNames: ['operation', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly requestSeconds = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'Time from the request arriving to its answer being written, by operation, method and status',
    labelNames: ['operation', 'method', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'svc_rate_limit_refusals_total',
    help: 'Requests refused with 429 rate_limited, by operation',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });

  readonly deliveries = new Counter({
    name: 'svc_webhook_delivery_attempts_total',
    help: 'Delivery attempts made by this process, by outcome (delivered: a 2xx answer; failed: any other answer, a timeout or a refused connection; blocked: refused by the outbound guard)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly deliverySeconds = new Histogram({
    name: 'svc_webhook_delivery_duration_seconds',
    help: 'Time of one delivery attempt, from dialling to the end of the answer, by outcome',
    labelNames: ['outcome'] as const,
    buckets: DELIVERY_BUCKETS,
    registers: [this.registry],
  });

  readonly statementSeconds = new Histogram({
    name: 'svc_db_statement_duration_seconds',
    help: 'Time of one database statement as the service sees it: waiting for a pooled connection (PostgreSQL) or for the embedded database thread (PGlite), then running',
    buckets: STATEMENT_BUCKETS,
    registers: [this.registry],
  });

  constructor(db: Db) {
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
    const registers = [this.registry];
    new Gauge({
      name: 'svc_db_waiting_statements',
      help: 'Statements waiting now for a pooled connection (PostgreSQL) or queued for the embedded database thread (PGlite)',
      registers,
      collect() {
        this.set(db.pressure().waiting);
      },
    });
    new Gauge({
      name: 'svc_db_busy_connections',
      help: 'Pooled connections in use now (PostgreSQL); 1 while the embedded database runs a statement (PGlite)',
      registers,
      collect() {
        this.set(db.pressure().busy);
      },
    });
    // Both outbox gauges come from one read; the registry collects its metrics side by side.
    let reading: Promise<{ n: number; oldest: number | null } | undefined> | undefined;
    const readOutbox = () => {
      reading ??= db
        .query<{ n: number; oldest: number | null }>(
          `SELECT count(*)::int AS n, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`,
        )
        .then((rows) => rows[0])
        .finally(() => {
          reading = undefined;
        });
      return reading;
    };
    new Gauge({
      name: 'svc_outbox_pending',
      help: 'Deliveries waiting to be claimed (status pending), all instances together',
      registers,
      async collect() {
        this.set((await readOutbox())?.n ?? 0);
      },
    });
    new Gauge({
      name: 'svc_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest pending delivery (0 when none waits)',
      registers,
      async collect() {
        const oldest = (await readOutbox())?.oldest;
        this.set(oldest == null ? 0 : Math.max(0, (Date.now() - Number(oldest)) / 1000));
      },
    });
    new Gauge({
      name: 'svc_webhook_endpoints_auto_paused',
      help: `Endpoints paused now by ${FAILURES_BEFORE_PAUSE} consecutive failed deliveries, all instances together`,
      registers,
      async collect() {
        const [row] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_endpoints
            WHERE status = 'paused' AND deleted_at IS NULL AND consecutive_failures >= $1`,
          [FAILURES_BEFORE_PAUSE],
        );
        this.set(row?.n ?? 0);
      },
    });
  }

  /** Prometheus text exposition of every metric. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
