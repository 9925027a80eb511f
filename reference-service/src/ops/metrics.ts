import { FAILURES_BEFORE_PAUSE } from '@svc-kit/contract';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PostOutcome } from '../outbound/guarded-client.js';
import type { Db } from '../store/db.js';
import { SharedRead } from './shared-read.js';

interface DatabaseFigures {
  pending: number;
  oldest: number | null;
  auto_paused: number;
}

/** Within a scrape's usual timeout (10 s): the rest of the scrape is served without the database figures. */
const DATABASE_READ_TIMEOUT_MS = 2_000;

/** Request latencies of an API answered from one or two round trips: most buckets sit below 100 ms. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** A receiver's answer time, up to the outbound total timeout (10 s by default). */
const DELIVERY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const STATEMENT_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1];

/**
 * Every figure of `/metrics` (ops/metrics-server.ts), in a registry of its own (two services in one process,
 * as in the tests, never share counters). Counters are this process's; the outbox and endpoint figures are
 * read from the database at scrape time, the same on every instance.
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

  readonly sectionWaitSeconds = new Histogram({
    name: 'svc_db_section_wait_seconds',
    help: 'Time a transaction or an advisory-locked section waited before its first statement could run: a pooled connection and BEGIN (PostgreSQL) or the embedded database thread and the session (PGlite), and the lock',
    buckets: STATEMENT_BUCKETS,
    registers: [this.registry],
  });

  constructor(db: Db) {
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
    const gauge = (name: string, help: string, read: () => number | Promise<number>) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          this.set(await read());
        },
      });
    gauge(
      'svc_db_waiting_statements',
      'Statements waiting now for a pooled connection (PostgreSQL) or queued for the embedded database thread (PGlite)',
      () => db.pressure().waiting,
    );
    gauge(
      'svc_db_busy_connections',
      'Pooled connections in use now (PostgreSQL); 1 while the embedded database runs a statement (PGlite)',
      () => db.pressure().busy,
    );
    // One read, shared by the gauges and by overlapping scrapes. A scrape never waits on the database for
    // long nor fails with it: the gauges keep their last values, `svc_metrics_db_read_ok` says so, and
    // every other figure is still served.
    const figures = new SharedRead(
      () =>
        db
          .query<DatabaseFigures>(
            `SELECT o.pending, o.oldest, p.auto_paused
               FROM (SELECT count(*)::int AS pending,
                            min(greatest(created_at, coalesce(next_attempt_at, 0))) AS oldest
                       FROM webhook_deliveries WHERE status = 'pending') o,
                    (SELECT count(*)::int AS auto_paused FROM webhook_endpoints
                      WHERE status = 'paused' AND deleted_at IS NULL AND consecutive_failures >= $1) p`,
            [FAILURES_BEFORE_PAUSE],
          )
          .then((rows) => rows[0]!),
      DATABASE_READ_TIMEOUT_MS,
    );
    let last: DatabaseFigures = { pending: 0, oldest: null, auto_paused: 0 };
    let fresh = false;
    const current = async () => {
      try {
        last = await figures.get();
        fresh = true;
      } catch {
        fresh = false;
      }
      return last;
    };
    gauge(
      'svc_metrics_db_read_ok',
      `1 when this scrape read the database figures (outbox, auto-paused endpoints); 0 when the read failed or took over ${DATABASE_READ_TIMEOUT_MS} ms, and they are the last values read`,
      async () => {
        await current();
        return fresh ? 1 : 0;
      },
    );
    gauge(
      'svc_outbox_pending',
      'Deliveries waiting to be claimed (status pending), all instances together',
      async () => (await current()).pending,
    );
    gauge(
      'svc_outbox_oldest_pending_age_seconds',
      // A row the delivery pace holds is not late until its time: a paced backlog is not the worker's lag.
      'How long the pending delivery that fell due first has waited since (0 when none is due)',
      async () => {
        const { oldest } = await current();
        return oldest == null ? 0 : Math.max(0, (Date.now() - Number(oldest)) / 1000);
      },
    );
    gauge(
      'svc_webhook_endpoints_auto_paused',
      `Endpoints paused now by ${FAILURES_BEFORE_PAUSE} consecutive failed deliveries, all instances together`,
      async () => (await current()).auto_paused,
    );
  }

  /**
   * Counts and times a delivery attempt's outcome, dialled or handed to a `listen` stream by the relay:
   * delivered (a 2xx answer), blocked (refused by the outbound guard) or failed (anything else).
   */
  countDelivery(outcome: PostOutcome): void {
    const delivered = outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300;
    const label = delivered ? 'delivered' : outcome.kind === 'blocked' ? 'blocked' : 'failed';
    this.deliveries.inc({ outcome: label });
    this.deliverySeconds.observe({ outcome: label }, outcome.latencyMs / 1000);
  }

  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
