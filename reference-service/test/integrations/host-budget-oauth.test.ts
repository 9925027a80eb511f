// The OAuth callback trades its code with the upstream's host, so it spends that host's budget too: refused
// before the single-use code is traded, the same callback completes once the budget has refilled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budget } from '../../src/domain/door-limits.js';
import { OAUTH_BINDING_COOKIE, stateBinding } from '../../src/features/integrations/oauth-binding.js';
import { createParty, type Instance, type Party, TestClock } from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import { useStore } from '../support/service-lifecycle.js';
import { startIntegrationInstance } from './support.js';
import { type OAuthUpstream, startOAuthUpstream } from './upstreams.js';

const MINUTE = 60_000;

describe.each(BACKENDS)('the OAuth callback against a spent upstream host, on $name', (backend) => {
  const clock = new TestClock();
  const store = useStore(backend);
  let one: Instance;
  let upstream: OAuthUpstream;
  let alice: Party;

  beforeAll(async () => {
    upstream = await startOAuthUpstream();
    one = await startIntegrationInstance(store, clock, {
      allowLocalhost: true,
      hostBudgets: {
        perHost: budget(2, MINUTE, 'exchanges with this MCP host'),
        perWorkspaceOnHost: budget(2, MINUTE, 'exchanges of this workspace with this MCP host'),
      },
    });
    alice = await createParty(one, 'alice');
  });
  afterAll(async () => {
    await one?.close();
    await upstream?.close();
  });

  it('answers 429 without trading the code, then completes the same callback', async () => {
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'guarded',
      endpoint: upstream.url,
    });
    expect(created.integration.status).toBe('needs_authorization');
    await alice.api.integrations.getExposure(alice.slug, 'guarded');

    const atServer = await fetch(created.authorization_url ?? '', { redirect: 'manual' });
    expect(atServer.status).toBe(302);
    const callback = atServer.headers.get('location') ?? '';
    const cookie = `${OAUTH_BINDING_COOKIE}=${stateBinding(new URL(callback).searchParams.get('state') ?? '')}`;
    const issued = upstream.issued.length;

    const refused = await fetch(callback, { headers: { cookie } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(upstream.issued).toHaveLength(issued);

    clock.advance(MINUTE);
    const back = await fetch(callback, { headers: { cookie } });
    expect(back.status).toBe(200);
    expect(await back.json()).toEqual({ status: 'authorized', integration: 'guarded' });
    expect(upstream.issued).toHaveLength(issued + 1);
  });
});
