// A listen stream's first check comes after the stream is held. Between `ready` and the hold, the
// database still names the listener's previous stream; a check that ran then (an announcement on the
// credentials channel, which on PostgreSQL arrives on a connection of its own, first of all right after
// it starts listening) ended the new stream as "replaced". PostgreSQL only: the hold is held back here by
// a row lock from another connection, which PGlite's one connection cannot take beside the service.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS_CHANNEL } from '../../src/store/credential-cache.js';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { createDeliveryTenant } from '../delivery/support.js';
import { createEmptyPostgres } from '../support/backends.js';
import { call, type Tenant } from '../support/harness.js';
import { until } from '../support/until.js';
import { startRelayService } from './support.js';

type RelayService = Awaited<ReturnType<typeof startRelayService>>;

/** A stream as the CLI reads it: everything received so far, kept as it arrives. */
interface OpenStream {
  id: string;
  text(): string;
  abort(): void;
}

describe('a listen stream on postgres and the announcements before it is held', () => {
  let database: Awaited<ReturnType<typeof createEmptyPostgres>>;
  let store: OpenedStore;
  let service: RelayService;
  let tenant: Tenant;
  const streams: OpenStream[] = [];

  beforeAll(async () => {
    database = await createEmptyPostgres();
    store = await openStore({ databaseUrl: database.url, dataDir: '/nonexistent' });
    // The periodic check ten minutes away: every check here is one an announcement caused.
    service = await startRelayService(store, { soleInstance: false, streamCheckMs: 10 * 60_000 });
    tenant = await createDeliveryTenant(service);
  });
  afterAll(async () => {
    for (const stream of streams) stream.abort();
    await service?.close();
    await store?.close();
    await database?.drop();
  });

  async function openStream(query = ''): Promise<OpenStream> {
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
    const stream = { id, text: () => text, abort: () => controller.abort() };
    streams.push(stream);
    return stream;
  }

  const announceEverything = () => store.db.query('SELECT pg_notify($1, $2)', [CREDENTIALS_CHANNEL, '']);

  it('is not ended as replaced by a check that ran before its hold; revoking its key still ends it', async () => {
    const first = await openStream();
    // The service's watch starts listening with the first stream; announce until it surely does.
    await until(async () => {
      await announceEverything();
      await new Promise((resolve) => setTimeout(resolve, 100));
      return first.text().includes(': ping');
    });

    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [first.id]);
      // `ready` arrives while the hold waits for the lock.
      const second = await openStream(`?listener=${first.id}`);
      const pingsBefore = second.text().split(': ping').length;
      await announceEverything();
      // Time for a check to run now, as it did before the fix, and end the stream.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(second.text()).not.toContain('event: end');
      await locker.query('ROLLBACK');

      await until(() => first.text().includes('"reason":"replaced"'));
      // The second stream's check, held back until its hold, runs then (its heartbeat shows it).
      await until(() => second.text().split(': ping').length > pingsBefore);
      expect(second.text()).not.toContain('event: end');

      const keyId = /^svc_([0-9a-f]+)_/.exec(tenant.key)![1]!;
      const revoked = await call(service, 'DELETE', `/v1/workspace/keys/${keyId}`, {
        auth: { cookie: tenant.steppedUpSession },
        headers: { origin: new URL(service.baseUrl).origin },
      });
      expect(revoked.status).toBe(204);
      await until(() => second.text().includes('event: end'));
      expect(second.text()).toContain('"reason":"revoked"');
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
    }
  });
});
