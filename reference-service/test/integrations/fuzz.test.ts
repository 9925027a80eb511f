import { errorBodySchema, operations } from '@svc-kit/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParty, type Instance, type Party, TestClock } from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import { call } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { startIntegrationInstance } from './support.js';
import { startStreamableUpstream, type Upstream } from './upstreams.js';

/**
 * Arbitrary JSON thrown at createIntegration and setExposure: each answer is the operation's success or a
 * 400 with the error body, never a 500; the exposure stays readable and schema-valid afterwards.
 */
describe.each(BACKENDS)('integration operations under arbitrary input on $name', (backend) => {
  const store = useStore(backend);
  let one: Instance;
  let upstream: Upstream;
  let alice: Party;
  const clock = new TestClock();

  beforeAll(async () => {
    upstream = await startStreamableUpstream();
    one = await startIntegrationInstance(store, clock, { allowLocalhost: false });
    alice = await createParty(one, 'alice');
    // Stored directly: this instance refuses loopback upstreams, and nothing here needs to reach one.
    await one.ctx.db.query(
      `INSERT INTO integrations (id, identity_id, workspace_id, slug, transport, endpoint, status, catalog, exposure,
         exposure_version, created_at, updated_at)
       SELECT 'int_fuzz', id, workspace_id, 'fuzz', 'streamable-http', $2, 'unreachable', '[]', '[]', 0, 0, 0
         FROM identities WHERE id = $1`,
      [alice.identityId, upstream.url],
    );
  });
  afterAll(async () => {
    await one?.close();
    await upstream?.close();
  });

  const extra = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
  const entry = fc
    .tuple(
      fc.record(
        {
          tool: fc.oneof(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 1 })),
          mode: fc.oneof(fc.constantFrom('passthrough', 'mapped', 'agent'), fc.string({ maxLength: 8 })),
          name: fc.oneof(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 1 })),
          description: fc.oneof(fc.string({ maxLength: 20 }), fc.integer()),
        },
        { requiredKeys: ['tool', 'mode'] },
      ),
      extra,
    )
    .map(([known, more]) => ({ ...more, ...known }));
  const exposureBodies = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({ entries: fc.array(entry, { maxLength: 6 }) }),
    fc.record({ entries: fc.array(entry, { maxLength: 3 }), surprise: fc.jsonValue({ maxDepth: 1 }) }),
  );
  const createBodies = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record(
      {
        catalogue: fc.oneof(fc.string({ maxLength: 70 }), fc.jsonValue({ maxDepth: 1 })),
        slug: fc.oneof(fc.string({ maxLength: 40 }), fc.integer()),
        endpoint: fc.oneof(fc.webUrl(), fc.string({ maxLength: 30 })),
        transport: fc.oneof(fc.constantFrom('streamable-http', 'sse'), fc.string({ maxLength: 8 })),
        auth: fc.oneof(
          fc.constant(null),
          fc.record({ header: fc.string({ maxLength: 70 }), value: fc.string({ maxLength: 30 }) }),
          fc.jsonValue({ maxDepth: 1 }),
        ),
      },
      { requiredKeys: [] },
    ),
  );

  function expectSuccessOr400(result: { status: number; body: unknown }, success: number) {
    if (result.status === success) return;
    expect(result.status).toBe(400);
    errorBodySchema.parse(result.body);
  }

  it('answers setExposure with its version or 400, and keeps the exposure valid', async () => {
    const path = `/v1/identities/${alice.slug}/integrations/fuzz/exposure`;
    await fc.assert(
      fc.asyncProperty(exposureBodies, async (body) => {
        const result = await call(one, 'POST', path, { auth: { key: alice.key }, body });
        expectSuccessOr400(result, 200);
      }),
      { numRuns: 60 },
    );
    const read = await call(one, 'GET', path, { auth: { key: alice.key } });
    expect(read.status).toBe(200);
    operations.getExposure.success.schema.parse(read.body);
  });

  it('answers createIntegration with 201 or 400', async () => {
    const path = `/v1/identities/${alice.slug}/integrations`;
    await fc.assert(
      fc.asyncProperty(createBodies, async (body) => {
        const result = await call(one, 'POST', path, { auth: { key: alice.key }, body });
        expectSuccessOr400(result, 201);
      }),
      { numRuns: 60 },
    );
  });
});
