// A shutdown held by an answer that never comes gives up after SVC_SHUTDOWN_GRACE_MS, says where it was
// stuck and exits with status 1. The real entry point in a child process on real PostgreSQL; the answer is
// held by a lock taken on a connection of the test's own.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/postgres.js';
import { createEmptyPostgres } from '../support/backends.js';
import { insertSandboxKey } from '../support/sandbox-key.js';
import { buildEntryPoint, spawnService } from '../support/service-process.js';
import { until } from '../support/until.js';

const GRACE_MS = 1_500;

let entry: Awaited<ReturnType<typeof buildEntryPoint>>;
let database: Awaited<ReturnType<typeof createEmptyPostgres>>;
beforeAll(async () => {
  [entry, database] = await Promise.all([buildEntryPoint(), createEmptyPostgres()]);
}, 60_000);
afterAll(async () => {
  await entry?.remove();
  await database?.drop();
});

it('gives up on an answer the database never gives, names the step and exits with 1', async () => {
  const service = spawnService(entry.main, {
    DATABASE_URL: database.url,
    SVC_SHUTDOWN_GRACE_MS: String(GRACE_MS),
  });
  const locker = new pg.Client({ connectionString: database.url });
  try {
    const baseUrl = await service.ready();
    const db = await openPostgres(database.url);
    const key = await insertSandboxKey(db).finally(() => db.close());
    const list = () =>
      fetch(`${baseUrl}/v1/workspace/webhooks`, { headers: { authorization: `Bearer ${key.token}` } });
    expect((await list()).status).toBe(200);

    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE webhook_endpoints IN ACCESS EXCLUSIVE MODE');
    const stuck = list().catch((error: unknown) => error);
    // The service's statement is waiting for the lock before the shutdown starts.
    await until(async () => {
      const { rows } = await locker.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      return rows[0]!.n > 0;
    }, 10_000);

    const signalled = performance.now();
    service.child.kill('SIGTERM');
    const code = await service.exited;
    const tookMs = performance.now() - signalled;

    expect(code).toBe(1);
    expect(tookMs).toBeGreaterThanOrEqual(GRACE_MS - 50);
    expect(tookMs).toBeLessThan(GRACE_MS + 5_000);
    const failure = service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; err?: { type: string; message: string } })
      .find((line) => line.msg === 'shutdown failed');
    expect(failure?.err).toMatchObject({
      type: 'ShutdownTimeoutError',
      message: `shutdown did not finish within ${GRACE_MS} ms: still closing the API port, with answers in progress`,
    });
    // The caller loses its connection with the process, with no answer.
    expect(await stuck).toBeInstanceOf(Error);
  } finally {
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
    await locker.end().catch(() => {});
  }
}, 60_000);
