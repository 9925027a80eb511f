// Every new Idempotency-Key is a row kept for its 24-hour window, refusals included (a 404 is the key's first
// answer): without a bound one workspace's calls grew the store at the rate they came. The workspace's budget
// of new keys is spent after the claim, so a replay costs nothing and a refused call leaves no row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEYS_KEPT, limitBucket } from '../../src/domain/door-limits.js';
import { BACKENDS } from '../support/backends.js';
import {
  call,
  createTenant,
  expectRefusal,
  startTestService,
  type Tenant,
  type TestService,
} from '../support/harness.js';
import { addIdentity } from '../support/identity.js';
import { useStore } from '../support/service-lifecycle.js';

const NO_SUCH_CONTACT = 'f'.repeat(64);

describe.each(BACKENDS)('new Idempotency-Keys past the workspace budget, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(store);
  });
  afterAll(async () => {
    await service?.close();
  });

  /** A tenant with an identity, and its budget of new keys left at `tokens`. */
  async function tenantWithKeysLeft(tokens: number): Promise<Tenant & { slug: string }> {
    const tenant = await createTenant(service.ctx);
    const slug = `keyed-${tenant.workspaceId.slice(-8)}`;
    await addIdentity(store.db, tenant.workspaceId, slug);
    await store.db.query('INSERT INTO outbound_budgets (bucket, tokens, updated_at) VALUES ($1, $2, $3)', [
      limitBucket('idempotency-keys', tenant.workspaceId),
      tokens,
      service.ctx.now(),
    ]);
    return { ...tenant, slug };
  }

  // Block runs in the key's transaction; reject, which may call a peer, in steps (the claim committed first).
  const verbs = ['block', 'reject'] as const;
  const keyed = (tenant: Tenant & { slug: string }, verb: (typeof verbs)[number], key: string) =>
    call(service, 'POST', `/v1/identities/${tenant.slug}/contacts/${NO_SUCH_CONTACT}/${verb}`, {
      auth: { key: tenant.key },
      headers: { 'idempotency-key': key },
    });
  const keysOf = async (workspaceId: string) =>
    (
      await store.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM idempotency_keys WHERE workspace_id = $1',
        [workspaceId],
      )
    )[0]!.n;

  it.each(verbs)(
    'refuses a new key on %s once the budget is spent, and stores nothing for it',
    async (verb) => {
      const tenant = await tenantWithKeysLeft(1);
      expectRefusal(await keyed(tenant, verb, 'first'), 404, 'not_found');
      expect(await keysOf(tenant.workspaceId)).toBe(1);

      const refused = await keyed(tenant, verb, 'second');
      expectRefusal(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await keysOf(tenant.workspaceId)).toBe(1);

      // A repeat of a stored key is its replay: it spends nothing.
      const replay = await keyed(tenant, verb, 'first');
      expectRefusal(replay, 404, 'not_found');
      expect(replay.headers.get('idempotent-replayed')).toBe('true');

      // Another workspace keeps its own budget.
      const other = await tenantWithKeysLeft(IDEMPOTENCY_KEYS_KEPT.capacity);
      expectRefusal(await keyed(other, verb, 'second'), 404, 'not_found');
    },
  );
});
