import { APIError } from '@svc-kit/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParty, eventsFrom, type Instance, type Party, TestClock } from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import type { StoredEvent } from '../support/endpoints.js';
import { useStore } from '../support/service-lifecycle.js';
import { integrationEvents, startIntegrationInstance } from './support.js';
import { startStreamableUpstream, type Upstream } from './upstreams.js';

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof APIError) return { status: error.status, code: String(error.code) };
    throw error;
  }
  throw new Error('expected a refusal');
}

/**
 * Identity A (instance one) connects an upstream MCP server and exposes its tools; contact B (instance
 * two, its own database) lists and calls them through the peer protocol.
 */
describe.each(BACKENDS)('contact tools served from an integration on $name', (backend) => {
  const clock = new TestClock();
  const stores = [useStore(backend), useStore(backend)];
  let one: Instance & { logs(): string };
  let two: Instance;
  let upstream: Upstream;
  let alice: Party;
  let aliceEvents: () => Promise<StoredEvent[]>;
  let bob: Party;
  const SECRET = 'upstream-secret-value-123456';

  // Each peer call spends one token of the per-contact budget: the test clock refills it.
  const pause = () => clock.advance(2000);

  beforeAll(async () => {
    one = await startIntegrationInstance(stores[0]!, clock, { allowLocalhost: true });
    two = await startIntegrationInstance(stores[1]!, clock, { allowLocalhost: false });
    upstream = await startStreamableUpstream({ header: 'X-Api-Key', value: SECRET });
    alice = await createParty(one, 'alice');
    aliceEvents = await eventsFrom(alice);
    bob = await createParty(two, 'bob');
    await bob.api.contacts.request(bob.slug, { card: alice.card });
    await alice.api.contacts.approve(alice.slug, bob.fingerprint, { preset: 'colleague' });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await upstream?.close();
  });

  it('connects, exposes, lets a contact list and call, and follows exposure changes at once', async () => {
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'tools',
      endpoint: upstream.url,
      transport: 'streamable-http',
      auth: { header: 'X-Api-Key', value: SECRET },
    });
    expect(created).toEqual({
      integration: {
        id: expect.stringMatching(/^int_/),
        slug: 'tools',
        transport: 'streamable-http',
        endpoint: upstream.url,
        status: 'healthy',
        permission: 'tools:call',
      },
      tools: 2,
      trouble: null,
      authorization_url: null,
    });
    // The credential went upstream as the header it was given.
    expect(upstream.headers.at(-1)?.['x-api-key']).toBe(SECRET);
    expect(await alice.api.integrations.list(alice.slug)).toEqual({ integrations: [created.integration] });

    // Nothing is exposed yet: the contact sees no tools.
    expect(await bob.api.contacts.listTools(bob.slug, alice.fingerprint)).toEqual({ tools: [] });
    pause();

    const exposure = await alice.api.integrations.getExposure(alice.slug, 'tools');
    expect(exposure.version).toBe(0);
    expect(exposure.entries).toEqual([]);
    expect(exposure.stale).toEqual([]);
    expect(exposure.catalog.map((tool) => tool.name).sort()).toEqual(['add', 'echo']);

    expect(
      await alice.api.integrations.setExposure(alice.slug, 'tools', {
        entries: [{ tool: 'echo', mode: 'passthrough' }],
      }),
    ).toEqual({ version: 1 });
    const listed = await bob.api.contacts.listTools(bob.slug, alice.fingerprint);
    expect(listed.tools).toEqual([
      {
        name: 'echo',
        description: 'Echoes the text back.',
        input_schema: expect.objectContaining({ type: 'object', properties: { text: { type: 'string' } } }),
      },
    ]);
    pause();

    // `colleague` lets a contact list tools, not call them.
    expect(
      await refusal(
        bob.api.contacts.callTool(bob.slug, alice.fingerprint, { tool: 'echo', arguments: { text: 'hi' } }),
      ),
    ).toEqual({ status: 403, code: 'forbidden' });
    pause();

    await alice.api.contacts.update(alice.slug, bob.fingerprint, { preset: 'close' });
    const called = await bob.api.contacts.callTool(bob.slug, alice.fingerprint, {
      tool: 'echo',
      arguments: { text: 'hi' },
    });
    expect(called).toEqual({
      ok: true,
      result: expect.objectContaining({ content: [{ type: 'text', text: 'echo: hi' }] }),
    });
    pause();

    // A tool that is not exposed cannot be called, even though the upstream has it.
    expect(
      await bob.api.contacts.callTool(bob.slug, alice.fingerprint, {
        tool: 'add',
        arguments: { a: 1, b: 2 },
      }),
    ).toEqual({
      ok: false,
      result: expect.objectContaining({ error: 'unknown_tool' }),
    });
    pause();

    // mapped: the same upstream tool under another name and description, effective on the next call.
    expect(
      await alice.api.integrations.setExposure(alice.slug, 'tools', {
        entries: [
          { tool: 'echo', mode: 'mapped', name: 'shout', description: 'Says it back.' },
          { tool: 'add', mode: 'passthrough' },
        ],
      }),
    ).toEqual({ version: 2 });
    const remapped = await bob.api.contacts.listTools(bob.slug, alice.fingerprint);
    expect(remapped.tools.map((tool) => [tool.name, tool.description])).toEqual([
      ['shout', 'Says it back.'],
      ['add', 'Adds two numbers.'],
    ]);
    pause();
    expect(
      await bob.api.contacts.callTool(bob.slug, alice.fingerprint, {
        tool: 'shout',
        arguments: { text: 'yo' },
      }),
    ).toEqual({
      ok: true,
      result: expect.objectContaining({ content: [{ type: 'text', text: 'echo: yo' }] }),
    });
    pause();
    expect(
      await bob.api.contacts.callTool(bob.slug, alice.fingerprint, {
        tool: 'add',
        arguments: { a: 2, b: 3 },
      }),
    ).toEqual({
      ok: true,
      result: expect.objectContaining({ content: [{ type: 'text', text: '5' }] }),
    });
    pause();

    // The upstream drops `add`: the entry shows as stale and is no longer offered.
    upstream.tools.delete('add');
    const afterVanish = await alice.api.integrations.getExposure(alice.slug, 'tools');
    expect(afterVanish.stale).toEqual(['add']);
    expect(afterVanish.version).toBe(2);
    expect(afterVanish.catalog.map((tool) => tool.name)).toEqual(['echo']);
    expect(
      (await bob.api.contacts.listTools(bob.slug, alice.fingerprint)).tools.map((tool) => tool.name),
    ).toEqual(['shout']);
    pause();

    // A contact whose switches lose `tools:list` sees nothing listed; without `tools:call` a call of an
    // offered tool is refused.
    await alice.api.contacts.update(alice.slug, bob.fingerprint, { permissions: ['messages:receive'] });
    expect(await bob.api.contacts.listTools(bob.slug, alice.fingerprint)).toEqual({ tools: [] });
    pause();
    expect(
      await refusal(
        bob.api.contacts.callTool(bob.slug, alice.fingerprint, { tool: 'shout', arguments: { text: 'x' } }),
      ),
    ).toEqual({ status: 403, code: 'forbidden' });
    pause();

    expect(await integrationEvents(aliceEvents)).toEqual([
      { type: 'integration.created', data: { integration: 'tools' } },
      { type: 'integration.exposure_updated', data: { integration: 'tools', version: 1 } },
      { type: 'integration.exposure_updated', data: { integration: 'tools', version: 2 } },
    ]);

    // The credential is stored sealed and never shown or logged.
    const [row] = await one.ctx.db.query<{ id: string; auth_enc: string }>(
      'SELECT id, auth_enc FROM integrations WHERE slug = $1',
      ['tools'],
    );
    expect(row?.auth_enc).toMatch(/^v1\./);
    expect(row?.auth_enc).not.toContain(SECRET);
    expect(one.logs()).not.toContain(SECRET);

    // Delete: the row, and with it the sealed credential, is gone from the database.
    expect(await alice.api.integrations.delete(alice.slug, 'tools')).toBeNull();
    const left = await one.ctx.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM integrations WHERE id = $1',
      [row?.id],
    );
    expect(left[0]?.n).toBe(0);
    const anywhere = await one.ctx.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE body LIKE '%' || $1 || '%'`,
      [SECRET],
    );
    expect(anywhere[0]?.n).toBe(0);
    expect((await integrationEvents(aliceEvents)).at(-1)).toEqual({
      type: 'integration.deleted',
      data: { integration: 'tools' },
    });
    expect(await alice.api.integrations.list(alice.slug)).toEqual({ integrations: [] });
    await alice.api.contacts.update(alice.slug, bob.fingerprint, { preset: 'close' });
    expect(await bob.api.contacts.listTools(bob.slug, alice.fingerprint)).toEqual({ tools: [] });
    pause();
  });

  it('reports a wrong credential as needs_authorization, in words, without echoing it', async () => {
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'wrong-key',
      endpoint: upstream.url,
      transport: 'streamable-http',
      auth: { header: 'X-Api-Key', value: 'not-the-secret' },
    });
    expect(created.integration.status).toBe('needs_authorization');
    expect(created.tools).toBe(0);
    expect(created.trouble).toMatch(/HTTP 401/);
    expect(created.trouble).not.toContain('not-the-secret');
    await alice.api.integrations.delete(alice.slug, 'wrong-key');
  });

  it('applies the outbound guard: loopback only with the sandbox opt-in, never private addresses', async () => {
    // Instance two has no opt-in: the loopback upstream is refused before anything is sent.
    expect(
      await refusal(
        bob.api.integrations.create(bob.slug, { endpoint: upstream.url, transport: 'streamable-http' }),
      ),
    ).toEqual({ status: 400, code: 'invalid_request' });
    for (const endpoint of [
      'https://internal.example.com/mcp',
      'https://10.0.0.1/mcp',
      'http://hooks.example.com/mcp',
    ]) {
      expect(await refusal(alice.api.integrations.create(alice.slug, { endpoint }))).toEqual({
        status: 400,
        code: 'invalid_request',
      });
    }
    expect(await alice.api.integrations.list(alice.slug)).toEqual({ integrations: [] });
  });

  it('keeps a contact that is not active away from the tools', async () => {
    await alice.api.integrations.create(alice.slug, {
      slug: 'open',
      endpoint: upstream.url,
      auth: { header: 'X-Api-Key', value: SECRET },
    });
    await alice.api.integrations.setExposure(alice.slug, 'open', {
      entries: [{ tool: 'echo', mode: 'passthrough' }],
    });
    expect(
      (await bob.api.contacts.listTools(bob.slug, alice.fingerprint)).tools.map((tool) => tool.name),
    ).toEqual(['echo']);
    pause();
    // A silent block: the blocked contact sees no tools and cannot call one, and is not told why.
    await alice.api.contacts.block(alice.slug, bob.fingerprint);
    expect(await bob.api.contacts.listTools(bob.slug, alice.fingerprint)).toEqual({ tools: [] });
    pause();
    expect(
      await bob.api.contacts.callTool(bob.slug, alice.fingerprint, {
        tool: 'echo',
        arguments: { text: 'x' },
      }),
    ).toEqual({
      ok: false,
      result: expect.objectContaining({ error: 'unknown_tool' }),
    });
    pause();
    await alice.api.contacts.unblock(alice.slug, bob.fingerprint);
    await alice.api.integrations.delete(alice.slug, 'open');
  });
});
