import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Queryable } from '../store/db.js';
import { loadMigrations } from '../store/migrate.js';

export interface Readiness {
  /** Whether this process's delivery worker has started and is not stopping. */
  deliveryRunning(): boolean;
}

/** A readiness check that cannot answer within this time counts as not ready (a pool may wait forever). */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * `GET /healthz`: the process answers. `GET /readyz`: it can serve: the database answers, every migration
 * this build knows is applied, and the delivery worker runs. Neither needs credentials, so neither says
 * more than ready or not (no versions, no error text): the reasons are in the logs.
 */
export async function registerHealthRoutes(
  app: FastifyInstance,
  db: Queryable,
  readiness: Readiness,
): Promise<void> {
  const expected = (await loadMigrations()).length;
  const send = (reply: FastifyReply, ok: boolean) =>
    reply
      .code(ok ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ok ? 'ok' : 'unavailable' });

  app.get('/healthz', async (_request, reply) => send(reply, true));
  app.get('/readyz', async (request, reply) => {
    if (!readiness.deliveryRunning()) {
      request.log.warn('not ready: the delivery worker is not running');
      return send(reply, false);
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      const applied = await Promise.race([
        db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations'),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error('the database did not answer in time')),
            CHECK_TIMEOUT_MS,
          );
        }),
      ]);
      const n = applied[0]?.n ?? 0;
      if (n < expected) {
        request.log.warn({ applied: n, expected }, 'not ready: migrations are missing');
        return send(reply, false);
      }
      return send(reply, true);
    } catch (error) {
      request.log.warn({ err: error }, 'not ready: the database check failed');
      return send(reply, false);
    } finally {
      clearTimeout(timer);
    }
  });
}
