// setExposure rewrites up to 256 KiB of entries on the integration's row with every call. Unbudgeted, one
// key wrote 20 MB a second into the data dir; and PGlite, which has no autovacuum, never reused the space
// of the versions it replaced, so the files grew for good. The writes are budgeted per workspace, and the
// retention pass vacuums the integrations on PGlite as it does the delivery log.
import { randomBytes } from 'node:crypto';
import { EXPOSURE_WRITES } from '@svc-kit/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION, startRetention } from '../../src/ops/retention.js';
import type { OpenedStore } from '../../src/store/open.js';
import { createParty, type Instance, type Party, TestClock } from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import { call, expectRefusal } from '../support/harness.js';
import { startIntegrationInstance } from './support.js';

describe.each(BACKENDS)('exposure writes, on $name', (backend) => {
  const clock = new TestClock();
  let store: OpenedStore;
  let one: Instance;
  let eve: Party;

  beforeAll(async () => {
    store = await backend.open();
    one = await startIntegrationInstance(store, clock, { allowLocalhost: true });
    eve = await createParty(one, 'eve');
    // Nothing listens on port 9: the integration is stored as unreachable, its exposure still editable.
    const created = await call(one, 'POST', `/v1/identities/${eve.slug}/integrations`, {
      auth: { key: eve.key },
      body: { slug: 'up', endpoint: 'http://127.0.0.1:9/mcp' },
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await one?.close();
    await store?.close();
  });

  /** Entries of about 240 KiB that do not compress, as an attacker would send. */
  const entries = () =>
    Array.from({ length: 100 }, (_, i) => ({
      tool: `t${i}`,
      mode: 'mapped',
      name: `n${i}`,
      description: randomBytes(1_800).toString('base64'),
    }));
  const write = () =>
    call(one, 'POST', `/v1/identities/${eve.slug}/integrations/up/exposure`, {
      auth: { key: eve.key },
      body: { entries: entries() },
    });
  const size = async () => {
    const [row] = await store.db.query<{ bytes: number }>(
      "SELECT pg_total_relation_size('integrations')::int AS bytes",
    );
    return row!.bytes;
  };

  it('are budgeted per workspace, and their replaced versions do not grow the files', async () => {
    const retention = startRetention(store.db, {
      now: clock.now,
      settings: DEFAULT_RETENTION,
      log: pino({ level: 'silent' }),
    });
    try {
      const half = Math.floor(EXPOSURE_WRITES.capacity / 2);
      for (let n = 0; n < half; n++) expect((await write()).status).toBe(200);
      await retention.runOnce();
      const settled = await size();
      for (let n = half; n < EXPOSURE_WRITES.capacity; n++) expect((await write()).status).toBe(200);
      await retention.runOnce();
      // PostgreSQL's autovacuum does this in its own time; PGlite has none, so the pass must.
      if (backend.name === 'pglite') expect(await size()).toBeLessThan(settled + 2 * 1024 * 1024);
      expectRefusal(await write(), 429, 'rate_limited');
    } finally {
      await retention.close();
    }
  });
});
