import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Queryable } from '../store/db.js';
import { loadMigrations } from '../store/migrate.js';
import { SharedRead } from './shared-read.js';

export interface Readiness {
  /** Whether this process's delivery worker has started, and neither it nor the service is stopping. */
  deliveryRunning(): boolean;
}

/** A readiness check that cannot answer within this time counts as not ready (a pool may wait forever). */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * `GET /healthz`: the process answers. `GET /readyz`: the database answers, every migration this build knows
 * is applied, and the delivery worker runs; neither says more than ready or not (no credentials needed).
 * Callers arriving while a check runs share it (SharedRead), so a stalled database gets no queue of checks;
 * the reason for not being ready is logged when it changes.
 */
export async function registerHealthRoutes(
  app: FastifyInstance,
  db: Queryable,
  readiness: Readiness,
): Promise<void> {
  const expected = (await loadMigrations()).length;
  const applied = new SharedRead(async () => {
    const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    return row?.n ?? 0;
  }, CHECK_TIMEOUT_MS);
  // Readiness is logged when its reason changes: a warning on each new reason, a line when ready again.
  let lastReason: string | undefined;
  const report = (reason: string | undefined, details: object = {}) => {
    if (reason === lastReason) return;
    if (reason === undefined) app.log.info('ready again');
    else app.log.warn(details, `not ready: ${reason}`);
    lastReason = reason;
  };
  const send = (reply: FastifyReply, ok: boolean) =>
    reply
      .code(ok ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ok ? 'ok' : 'unavailable' });

  app.get('/healthz', async (_request, reply) => send(reply, true));
  app.get('/readyz', async (_request, reply) => {
    if (!readiness.deliveryRunning()) {
      report('the delivery worker is not running, or the service is shutting down');
      return send(reply, false);
    }
    let n: number;
    try {
      n = await applied.get();
    } catch (error) {
      report('the database check failed', { err: error });
      return send(reply, false);
    }
    if (n < expected) {
      report('migrations are missing', { applied: n, expected });
      return send(reply, false);
    }
    report(undefined);
    return send(reply, true);
  });
}
