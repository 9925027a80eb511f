import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_BINDING_COOKIE, stateBinding } from '../../src/features/integrations/oauth-binding.js';
import { createParty, eventsFrom, type Instance, type Party, TestClock } from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import type { StoredEvent } from '../support/endpoints.js';
import { call, expectRefusal } from '../support/harness.js';
import { rawCall } from '../support/raw-call.js';
import { useStore } from '../support/service-lifecycle.js';
import { integrationEvents, startIntegrationInstance } from './support.js';
import { type OAuthUpstream, startOAuthUpstream } from './upstreams.js';

/** The binding cookie the answer handing out the URL set, as the browser that started the ceremony has it. */
function bindingOf(callback: string): string {
  return `${OAUTH_BINDING_COOKIE}=${stateBinding(new URL(callback).searchParams.get('state') ?? '')}`;
}

/** Plays the owner's browser: opens the authorization URL and follows the redirect to our callback. */
async function consent(
  authorizationUrl: string,
): Promise<{ callback: string; status: number; body: unknown }> {
  const atServer = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(atServer.status).toBe(302);
  const callback = atServer.headers.get('location') ?? '';
  const back = await fetch(callback, { headers: { cookie: bindingOf(callback) } });
  return { callback, status: back.status, body: await back.json() };
}

describe.each(BACKENDS)('an upstream behind OAuth on $name', (backend) => {
  const clock = new TestClock();
  const stores = [useStore(backend), useStore(backend)];
  let one: Instance & { logs(): string };
  let two: Instance;
  let upstream: OAuthUpstream;
  let alice: Party;
  let aliceEvents: () => Promise<StoredEvent[]>;
  let bob: Party;

  beforeAll(async () => {
    upstream = await startOAuthUpstream();
    one = await startIntegrationInstance(stores[0]!, clock, { allowLocalhost: true });
    two = await startIntegrationInstance(stores[1]!, clock, { allowLocalhost: false });
    alice = await createParty(one, 'alice');
    aliceEvents = await eventsFrom(alice);
    bob = await createParty(two, 'bob');
    await bob.api.contacts.request(bob.slug, { card: alice.card });
    await alice.api.contacts.approve(alice.slug, bob.fingerprint, { preset: 'close' });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await upstream?.close();
  });

  it('discovers, registers, runs PKCE through the callback, stores sealed tokens and uses them', async () => {
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'guarded',
      endpoint: upstream.url,
    });
    expect(created.integration.status).toBe('needs_authorization');
    expect(created.tools).toBe(0);
    expect(created.trouble).toMatch(/authorization/);
    const url = new URL(created.authorization_url ?? '');
    expect(url.origin).toBe(new URL(upstream.url).origin);
    expect(url.pathname).toBe('/authorize');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe(`${one.baseUrl}/oauth/integrations/callback`);
    // The client was registered dynamically, for our callback.
    expect(upstream.registered.map((client) => client.redirect_uris)).toEqual([
      [`${one.baseUrl}/oauth/integrations/callback`],
    ]);

    // Reading the exposure before consent reaches the upstream without starting another ceremony.
    expect(await alice.api.integrations.getExposure(alice.slug, 'guarded')).toEqual({
      catalog: [],
      entries: [],
      version: 0,
      stale: [],
    });
    expect(upstream.registered).toHaveLength(1);
    expect((await alice.api.integrations.list(alice.slug)).integrations[0]?.status).toBe(
      'needs_authorization',
    );

    // The test clock stands still; each step that records an event moves it, so the events keep their order.
    clock.advance(1_000);
    const back = await consent(url.href);
    expect(back).toMatchObject({ status: 200, body: { status: 'authorized', integration: 'guarded' } });
    // The state is single-use: the same callback a second time finds nothing waiting.
    expectRefusal(
      await call(one, 'GET', new URL(back.callback).pathname + new URL(back.callback).search, {
        headers: { cookie: bindingOf(back.callback) },
      }),
      404,
      'not_found',
    );

    expect((await alice.api.integrations.list(alice.slug)).integrations[0]?.status).toBe('healthy');
    const tokens = upstream.issued.at(-1);
    const [row] = await one.ctx.db.query<{ oauth_tokens_enc: string; oauth_state: string | null }>(
      'SELECT oauth_tokens_enc, oauth_state FROM integrations WHERE slug = $1',
      ['guarded'],
    );
    expect(row?.oauth_tokens_enc).toMatch(/^v1\./);
    expect(row?.oauth_tokens_enc).not.toContain(tokens?.access_token);
    expect(row?.oauth_state).toBeNull();
    expect(one.logs()).not.toContain(tokens?.access_token);
    const code = new URL(back.callback).searchParams.get('code') ?? '';
    expect(code.length).toBeGreaterThan(0);
    expect(one.logs()).not.toContain(code);
    expect(one.logs()).toContain('/v1/identities/');

    // The tokens reach the upstream: the catalog lists, a contact's call goes through.
    const exposure = await alice.api.integrations.getExposure(alice.slug, 'guarded');
    expect(exposure.catalog.map((tool) => tool.name).sort()).toEqual(['add', 'echo']);
    expect(upstream.headers.at(-1)?.authorization).toBe(`Bearer ${tokens?.access_token}`);
    clock.advance(1_000);
    await alice.api.integrations.setExposure(alice.slug, 'guarded', {
      entries: [{ tool: 'echo', mode: 'passthrough' }],
    });
    expect(
      await bob.api.contacts.callTool(bob.slug, alice.fingerprint, {
        tool: 'echo',
        arguments: { text: 'sealed' },
      }),
    ).toEqual({
      ok: true,
      result: expect.objectContaining({ content: [{ type: 'text', text: 'echo: sealed' }] }),
    });

    // Authorizing again starts a new ceremony and hands out a new address.
    const again = await alice.api.integrations.authorize(alice.slug, 'guarded', { scope: 'tools' });
    expect(new URL(again.authorization_url).searchParams.get('scope')).toBe('tools');
    expect(again.authorization_url).not.toBe(url.href);

    expect((await integrationEvents(aliceEvents)).map((event) => event.type)).toEqual([
      'integration.created',
      'integration.authorized',
      'integration.exposure_updated',
    ]);

    // Delete forgets the registration, tokens and verifier with the row.
    await alice.api.integrations.delete(alice.slug, 'guarded');
    const left = await one.ctx.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM integrations WHERE oauth_tokens_enc IS NOT NULL OR oauth_client_enc IS NOT NULL`,
    );
    expect(left[0]?.n).toBe(0);
  });

  it('does not start OAuth for an integration with a static credential', async () => {
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'static',
      endpoint: upstream.url,
      auth: { header: 'Authorization', value: 'Bearer made-up' },
    });
    expect(created.integration.status).toBe('needs_authorization');
    expect(created.authorization_url).toBeNull();
    expectRefusal(
      await call(one, 'POST', `/v1/identities/${alice.slug}/integrations/static/authorize`, {
        auth: { key: alice.key },
        body: {},
      }),
      400,
      'invalid_request',
    );
    await alice.api.integrations.delete(alice.slug, 'static');
  });

  it('names its own callback whatever Host or forwarded headers the request carries', async () => {
    const spoofed = await rawCall(one.baseUrl, 'POST', `/v1/identities/${alice.slug}/integrations`, {
      headers: {
        authorization: `Bearer ${alice.key}`,
        host: 'evil.example',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
        forwarded: 'host=evil.example;proto=https',
      },
      body: { slug: 'spoofed-host', endpoint: upstream.url },
    });
    expect(spoofed.status).toBe(201);
    const url = new URL((spoofed.body as { authorization_url: string }).authorization_url);
    expect(url.searchParams.get('redirect_uri')).toBe(`${one.baseUrl}/oauth/integrations/callback`);
    await alice.api.integrations.delete(alice.slug, 'spoofed-host');
  });

  it('refuses a callback without a code or with an unknown state', async () => {
    expectRefusal(await call(one, 'GET', '/oauth/integrations/callback'), 400, 'invalid_request');
    const unknown = '/oauth/integrations/callback?code=abc&state=never-issued';
    // Without the state's binding it is refused before the state is looked up; with it, the state is unknown.
    expectRefusal(await call(one, 'GET', unknown), 403, 'forbidden');
    expectRefusal(
      await call(one, 'GET', unknown, { headers: { cookie: bindingOf(`${one.baseUrl}${unknown}`) } }),
      404,
      'not_found',
    );
    expectRefusal(
      await call(one, 'GET', '/oauth/integrations/callback?error=access_denied&state=x'),
      400,
      'invalid_request',
    );
  });
});
