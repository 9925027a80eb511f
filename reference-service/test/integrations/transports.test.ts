import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParty, type Instance, type Party, TestClock } from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import { call, expectRefusal } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { startIntegrationInstance } from './support.js';
import { startSseUpstream, startStreamableUpstream, type Upstream } from './upstreams.js';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each(BACKENDS)('integration transports, catalogue and validation on $name', (backend) => {
  const clock = new TestClock();
  const store = useStore(backend);
  let sse: Upstream;
  let streamable: Upstream;
  let one: Instance;
  let alice: Party;
  let bob: Party;
  const peerStore = useStore(backend);
  let two: Instance;

  beforeAll(async () => {
    sse = await startSseUpstream();
    streamable = await startStreamableUpstream();
    one = await startIntegrationInstance(store, clock, {
      allowLocalhost: true,
      catalogue: {
        'echo-box': { endpoint: streamable.url, transport: 'streamable-http', description: 'test' },
      },
    });
    two = await startIntegrationInstance(peerStore, clock, { allowLocalhost: false });
    alice = await createParty(one, 'alice');
    bob = await createParty(two, 'bob');
    await bob.api.contacts.request(bob.slug, { card: alice.card });
    await alice.api.contacts.approve(alice.slug, bob.fingerprint, { preset: 'close' });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await sse?.close();
    await streamable?.close();
  });

  it('connects an SSE upstream and forwards a contact’s call over it', async () => {
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'old-server',
      endpoint: sse.url,
      transport: 'sse',
    });
    expect(created.integration).toMatchObject({ transport: 'sse', status: 'healthy' });
    expect(created.tools).toBe(2);
    await alice.api.integrations.setExposure(alice.slug, 'old-server', {
      entries: [{ tool: 'add', mode: 'passthrough' }],
    });
    expect(
      await bob.api.contacts.callTool(bob.slug, alice.fingerprint, {
        tool: 'add',
        arguments: { a: 20, b: 22 },
      }),
    ).toEqual({ ok: true, result: expect.objectContaining({ content: [{ type: 'text', text: '42' }] }) });
    clock.advance(2000);
    await alice.api.integrations.delete(alice.slug, 'old-server');
  });

  it('falls back to SSE when no transport is named and Streamable HTTP is not served', async () => {
    const created = await alice.api.integrations.create(alice.slug, { slug: 'guess', endpoint: sse.url });
    expect(created.integration).toMatchObject({ transport: 'sse', status: 'healthy' });
    expect(created.tools).toBe(2);
    expect(created.trouble).toBeNull();
    await alice.api.integrations.delete(alice.slug, 'guess');
  });

  it('connects a catalogue entry by name, its name as the default slug', async () => {
    const created = await alice.api.integrations.create(alice.slug, { catalogue: 'echo-box' });
    expect(created.integration).toMatchObject({
      slug: 'echo-box',
      endpoint: streamable.url,
      transport: 'streamable-http',
      status: 'healthy',
    });
    expect(created.tools).toBe(2);
    await alice.api.integrations.delete(alice.slug, 'echo-box');
  });

  it('reports an upstream that cannot be reached as unreachable, with the reason in words', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}/mcp`;
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'down',
      endpoint,
      transport: 'streamable-http',
    });
    expect(created.integration.status).toBe('unreachable');
    expect(created.tools).toBe(0);
    expect(created.trouble).toMatch(/could not be reached \(ECONNREFUSED\)/);
    expect(created.authorization_url).toBeNull();
    // The exposure still answers, from the last catalog (empty), and the status stays true.
    const exposure = await alice.api.integrations.getExposure(alice.slug, 'down');
    expect(exposure).toEqual({ catalog: [], entries: [], version: 0, stale: [] });
    expect((await alice.api.integrations.list(alice.slug)).integrations[0]?.status).toBe('unreachable');
    await alice.api.integrations.delete(alice.slug, 'down');
  });

  it.each([
    ['no transport named', {}],
    ['SSE', { transport: 'sse' as const }],
  ])('reports a refused connection as unreachable with %s, too', async (_name, transport) => {
    const endpoint = `http://127.0.0.1:${await closedPort()}/mcp`;
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'down-auto',
      endpoint,
      ...transport,
    });
    expect(created.trouble).toMatch(/could not be reached/);
    expect(created.integration.status).toBe('unreachable');
    await alice.api.integrations.delete(alice.slug, 'down-auto');
  });

  it('refuses invalid bodies with 400 and unknown names with 404', async () => {
    const base = `/v1/identities/${alice.slug}/integrations`;
    const auth = { key: alice.key };
    const invalid: unknown[] = [
      { endpoint: streamable.url, transport: 'websocket' },
      { endpoint: 'not a url' },
      { endpoint: streamable.url, slug: 'x' },
      { endpoint: streamable.url, slug: 'Upper_Case' },
      { endpoint: streamable.url, auth: { header: '', value: 'v' } },
      { endpoint: streamable.url, auth: { header: 'h', value: 'v'.repeat(4097) } },
      { endpoint: streamable.url, surprise: true },
      { catalogue: 'no-such-entry' },
      { catalogue: 'echo-box', endpoint: streamable.url },
      {},
    ];
    for (const body of invalid) {
      expectRefusal(await call(one, 'POST', base, { auth, body }), 400, 'invalid_request');
    }
    await alice.api.integrations.create(alice.slug, { slug: 'valid', endpoint: streamable.url });
    expectRefusal(
      await call(one, 'POST', base, { auth, body: { slug: 'valid', endpoint: streamable.url } }),
      400,
      'invalid_request',
    );
    const exposure = `${base}/valid/exposure`;
    for (const body of [
      {},
      { entries: [{ tool: 'echo' }] },
      { entries: [{ tool: 'echo', mode: 'bogus' }] },
      { entries: [{ tool: 'echo', mode: 'mapped', name: 'has spaces' }] },
      { entries: [{ tool: 'echo', mode: 'mapped', name: 7 }] },
      {
        entries: [
          { tool: 'echo', mode: 'passthrough' },
          { tool: 'echo', mode: 'mapped' },
        ],
      },
    ]) {
      expectRefusal(await call(one, 'POST', exposure, { auth, body }), 400, 'invalid_request');
    }
    expectRefusal(
      await call(one, 'POST', `${base}/valid/authorize`, { auth, body: { scope: 's'.repeat(513) } }),
      400,
      'invalid_request',
    );
    expectRefusal(await call(one, 'GET', `${base}/nothing/exposure`, { auth }), 404, 'not_found');
    expectRefusal(await call(one, 'DELETE', `${base}/nothing`, { auth }), 404, 'not_found');
    expectRefusal(await call(one, 'GET', `/v1/identities/nobody/integrations`, { auth }), 404, 'not_found');
    // Nothing invalid was stored, the exposure is untouched.
    expect((await alice.api.integrations.list(alice.slug)).integrations.map((item) => item.slug)).toEqual([
      'valid',
    ]);
    expect((await alice.api.integrations.getExposure(alice.slug, 'valid')).version).toBe(0);
    await alice.api.integrations.delete(alice.slug, 'valid');
  });
});
