// A listen stream and the moments before its hold is written. Between `ready` and the hold the database
// still names the listener's previous stream; a check that ran then (an announcement on the credentials
// channel, which on PostgreSQL arrives on a connection of its own, first of all right after it starts
// listening), or another instance's hold notice, ended the new stream as "replaced". And a hold that fails
// leaves the previous stream the listener's, and tells the new stream's CLI to come back.
// PostgreSQL only: the hold is held back here by a row lock from another connection, which PGlite's one
// connection cannot take beside the service.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS } from '../../src/relay/types.js';
import { CREDENTIALS_CHANNEL } from '../../src/store/credential-cache.js';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { createDeliveryTenant } from '../delivery/support.js';
import { createEmptyPostgres } from '../support/backends.js';
import { call, type Tenant } from '../support/harness.js';
import { until } from '../support/until.js';
import { runCli, startRelayService } from './support.js';

type RelayService = Awaited<ReturnType<typeof startRelayService>>;

/** A stream as the CLI reads it: everything received so far, kept as it arrives. */
interface OpenStream {
  id: string;
  text(): string;
  pings(): number;
  abort(): void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a listen stream on postgres before its hold is written', () => {
  let database: Awaited<ReturnType<typeof createEmptyPostgres>>;
  let store: OpenedStore;
  let service: RelayService;
  let locker: pg.Client;
  const streams: OpenStream[] = [];

  beforeAll(async () => {
    database = await createEmptyPostgres();
    store = await openStore({ databaseUrl: database.url, dataDir: '/nonexistent' });
    // The periodic check ten minutes away: every check here is one an announcement caused.
    service = await startRelayService(store, { soleInstance: false, streamCheckMs: 10 * 60_000 });
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
  });
  afterAll(async () => {
    for (const stream of streams) stream.abort();
    await locker?.end();
    await service?.close();
    await store?.close();
    await database?.drop();
  });

  async function openStream(tenant: Tenant, query = ''): Promise<OpenStream> {
    const controller = new AbortController();
    const response = await fetch(`${service.baseUrl}/relay/v1/listen${query}`, {
      headers: { authorization: `Bearer ${tenant.key}` },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += decoder.decode(value, { stream: true });
      }
    })().catch(() => {});
    await until(() => text.includes('\n\n'));
    const id = /"listener_id":"(whk_[0-9a-f]+)"/.exec(text)![1]!;
    const stream = {
      id,
      text: () => text,
      pings: () => text.split(': ping').length - 1,
      abort: () => controller.abort(),
    };
    streams.push(stream);
    return stream;
  }

  const announceEverything = () => store.db.query('SELECT pg_notify($1, $2)', [CREDENTIALS_CHANNEL, '']);
  const holder = async (endpointId: string) =>
    (
      await store.db.query<{ listener_stream: string | null }>(
        'SELECT listener_stream FROM webhook_endpoints WHERE id = $1',
        [endpointId],
      )
    )[0]!.listener_stream;

  /** A first stream, held and checked once: the service's credential watch surely listens by then. */
  async function heldStream(tenant: Tenant): Promise<OpenStream> {
    const first = await openStream(tenant);
    await until(async () => {
      await announceEverything();
      await pause(100);
      return first.pings() > 0;
    });
    expect(await holder(first.id)).not.toBeNull();
    return first;
  }

  /** Runs `during` while the listener's row is locked by another connection, so a hold waits. */
  async function withRowLocked(endpointId: string, during: () => Promise<void>): Promise<void> {
    await locker.query('BEGIN');
    try {
      await locker.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [endpointId]);
      await during();
    } finally {
      await locker.query('ROLLBACK');
    }
  }

  it('is not ended as replaced by a check that ran before its hold; revoking its key still ends it', async () => {
    const tenant = await createDeliveryTenant(service);
    const first = await heldStream(tenant);
    let second!: OpenStream;
    let pingsBefore = 0;
    await withRowLocked(first.id, async () => {
      // `ready` arrives while the hold waits for the lock.
      second = await openStream(tenant, `?listener=${first.id}`);
      pingsBefore = second.pings();
      const firstPings = first.pings();
      await announceEverything();
      // The first stream's check runs at once (its heartbeat shows it); the second's, were it not held
      // back, would run beside it and end the stream within a moment.
      await until(() => first.pings() > firstPings);
      await pause(500);
      expect(second.text()).not.toContain('event: end');
    });

    await until(() => first.text().includes('"reason":"replaced"'));
    // The second stream's check, held back until its hold, runs then (its heartbeat shows it).
    await until(() => second.pings() > pingsBefore);
    expect(second.text()).not.toContain('event: end');

    const keyId = /^svc_([0-9a-f]+)_/.exec(tenant.key)![1]!;
    const revoked = await call(service, 'DELETE', `/v1/workspace/keys/${keyId}`, {
      auth: { cookie: tenant.steppedUpSession },
      headers: { origin: new URL(service.baseUrl).origin },
    });
    expect(revoked.status).toBe(204);
    await until(() => second.text().includes('event: end'));
    expect(second.text()).toContain('"reason":"revoked"');
  });

  it("is not ended as replaced by another instance's hold notice that arrives before its hold", async () => {
    const tenant = await createDeliveryTenant(service);
    const first = await heldStream(tenant);
    let second!: OpenStream;
    await withRowLocked(first.id, async () => {
      second = await openStream(tenant, `?listener=${first.id}`);
      // Another instance says a third stream took the listener before this one's hold was written.
      await store.db.query('SELECT pg_notify($1, $2)', [
        CHANNELS.hold,
        JSON.stringify({ endpoint_id: first.id, stream_id: 'f'.repeat(64), instance: 'another' }),
      ]);
      await pause(500);
      expect(second.text()).not.toContain('event: end');
    });
    await until(async () => (await holder(first.id)) !== null && first.text().includes('event: end'));
    // Written after the notice, this stream's hold is the later one: it stays.
    await pause(300);
    expect(second.text()).not.toContain('event: end');
    expect(service.relay.holds(first.id)).toBe(true);
  });

  /** Until `dropRefusal`, every hold's write fails, as when the database cannot take it. */
  const refuseHolds = () =>
    store.db.exec(`
      CREATE FUNCTION test_refuse_hold() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'the test refuses this hold'; END $$;
      CREATE TRIGGER test_refuse_hold BEFORE UPDATE OF listener_stream ON webhook_endpoints
        FOR EACH ROW EXECUTE FUNCTION test_refuse_hold();`);
  const dropRefusal = () =>
    store.db.exec('DROP TRIGGER test_refuse_hold ON webhook_endpoints; DROP FUNCTION test_refuse_hold();');

  it('tells the CLI to come back when the hold cannot be written, and the previous stream stays the listener’s', async () => {
    const tenant = await createDeliveryTenant(service);
    const first = await heldStream(tenant);
    const before = await holder(first.id);
    await refuseHolds();
    try {
      const second = await openStream(tenant, `?listener=${first.id}`);
      await until(() => second.text().includes('event: end'));
      expect(second.text()).toContain('"reason":"unavailable"');
      expect(await holder(first.id)).toBe(before);

      // The first stream is still held here and still checked, and the database still names it.
      const firstPings = first.pings();
      await announceEverything();
      await until(() => first.pings() > firstPings);
      await pause(300);
      expect(first.text()).not.toContain('event: end');
      expect(service.relay.holds(first.id)).toBe(true);
    } finally {
      await dropRefusal();
    }
  });

  it('svc-webhooks listen reconnects to the same listener once the hold can be written', async () => {
    const tenant = await createDeliveryTenant(service);
    await refuseHolds();
    const cli = runCli(['listen', '--forward-to', 'http://127.0.0.1:9/webhooks'], {
      SVC_API_KEY: tenant.key,
      SVC_BASE_URL: service.baseUrl,
    });
    try {
      await cli.printed('could not take the stream for its listener');
      await cli.printed('Reconnecting in');
      const id = /\(listener (whk_[0-9a-f]+)\)/.exec(cli.stdout())![1]!;
      await dropRefusal();
      await cli.printed(`Reconnected (listener ${id})`, 30_000);
      await until(async () => (await holder(id)) !== null);
      expect(service.relay.holds(id)).toBe(true);
      expect(cli.child.exitCode).toBeNull();
    } finally {
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
  });
});
