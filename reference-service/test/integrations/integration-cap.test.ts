import { MAX_INTEGRATIONS_PER_IDENTITY } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParty, type Instance, type Party, TestClock } from '../contacts/support.js';
import { call, expectRefusal } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { startIntegrationInstance } from './support.js';

/** Attack finding F24 (its smaller half): each integration created makes outbound requests; they are capped. */
describe('integrations per identity', () => {
  const clock = new TestClock();
  const store = useStore();
  let one: Instance;
  let eve: Party;

  beforeAll(async () => {
    one = await startIntegrationInstance(store, clock, { allowLocalhost: true });
    eve = await createParty(one, 'eve');
  });
  afterAll(async () => {
    await one?.close();
  });

  it(`are capped at ${MAX_INTEGRATIONS_PER_IDENTITY}; deleting one makes room`, {
    timeout: 120_000,
  }, async () => {
    const path = `/v1/identities/${eve.slug}/integrations`;
    // Nothing listens on port 9: each creation fails to connect at once and is stored as unreachable.
    const create = (i: number) =>
      call(one, 'POST', path, {
        auth: { key: eve.key },
        body: { slug: `up-${i}`, endpoint: 'http://127.0.0.1:9/mcp' },
      });
    for (let i = 0; i < MAX_INTEGRATIONS_PER_IDENTITY; i++) expect((await create(i)).status).toBe(201);
    expectRefusal(await create(99), 403, 'forbidden');
    expect((await call(one, 'DELETE', `${path}/up-0`, { auth: { key: eve.key } })).status).toBe(200);
    expect((await create(100)).status).toBe(201);
  });
});
