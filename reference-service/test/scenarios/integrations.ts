import {
  AUTHORIZATION_NEEDED_TROUBLE,
  INTEGRATION_PERMISSION,
  MAX_INTEGRATIONS_PER_IDENTITY,
} from '@svc-kit/contract';
import { expect, it } from 'vitest';
import { expectApiError, rawCall } from './expect.js';
import type { Target } from './target.js';

/** Identity integrations (spec 4.3): connect, expose, delete, and the shared limits. */
export function integrationScenarios(target: () => Target): void {
  it('a catalogue entry: create, list, exposure, set exposure, delete', async () => {
    const [owner] = await target().pair();
    const name = target().catalogueEntry;
    const created = await owner.api.integrations.create(owner.slug, { catalogue: name });
    expect(created).toMatchObject({
      integration: { slug: name, status: 'healthy', permission: INTEGRATION_PERMISSION },
      tools: 2,
      trouble: null,
      authorization_url: null,
    });
    expect(created.integration.id).toMatch(/^int_[0-9a-f]{24}$/);
    expect(await owner.api.integrations.list(owner.slug)).toEqual({ integrations: [created.integration] });
    const exposure = await owner.api.integrations.getExposure(owner.slug, name);
    expect(exposure.catalog.map((tool) => (tool as { name: string }).name).sort()).toEqual(['add', 'echo']);
    expect(exposure).toMatchObject({ entries: [], version: 0, stale: [] });
    const entries = [
      { tool: 'echo', mode: 'passthrough' as const },
      { tool: 'add', mode: 'mapped' as const, name: 'sum', description: 'Adds.' },
    ];
    expect(await owner.api.integrations.setExposure(owner.slug, name, { entries })).toEqual({ version: 1 });
    expect(await owner.api.integrations.getExposure(owner.slug, name)).toMatchObject({ entries, version: 1 });

    // The shared exposure limits.
    const refusedEntries = [
      [entries[0], entries[0]],
      [{ tool: 'echo', mode: 'mapped', name: 'has space' }],
      Array.from({ length: 501 }, (_, i) => ({ tool: `t${i}`, mode: 'passthrough' })),
    ];
    for (const refused of refusedEntries) {
      const answer = await rawCall(
        target(),
        owner,
        'POST',
        `/v1/identities/${owner.slug}/integrations/${name}/exposure`,
        {
          body: { entries: refused },
        },
      );
      expect(answer.status).toBe(400);
    }
    await expectApiError(
      owner.api.integrations.create(owner.slug, { catalogue: name }),
      400,
      'invalid_request',
    );
    const deleteWithBody = await rawCall(
      target(),
      owner,
      'DELETE',
      `/v1/identities/${owner.slug}/integrations/${name}`,
      {
        body: { force: true },
      },
    );
    expect(deleteWithBody.status).toBe(400);
    expect(await owner.api.integrations.delete(owner.slug, name)).toBeNull();
    expect(await owner.api.integrations.list(owner.slug)).toEqual({ integrations: [] });
    await expectApiError(owner.api.integrations.getExposure(owner.slug, name), 404, 'not_found');
    await expectApiError(owner.api.integrations.authorize(owner.slug, name, {}), 404, 'not_found');
  });

  it('an address: the default slug is the whole host; bad addresses and arguments are 400', async () => {
    const [owner] = await target().pair();
    const created = await owner.api.integrations.create(owner.slug, {
      endpoint: 'https://hooks.example.com/mcp',
    });
    expect(created.integration).toMatchObject({
      slug: 'hooks-example-com',
      endpoint: 'https://hooks.example.com/mcp',
      permission: INTEGRATION_PERMISSION,
    });
    if (target().capabilities.upstreams) {
      // Nothing serves MCP there from this machine: the status says so, and why.
      expect(created.integration.status).toBe('unreachable');
      expect(created.trouble).toEqual(expect.any(String));
    } else {
      // Declared: the mock dials nothing; an address it does not know is a healthy upstream with no tools.
      expect(created).toMatchObject({ integration: { status: 'healthy' }, tools: 0, trouble: null });
    }
    for (const body of [
      { endpoint: 'http://hooks.example.com/mcp' },
      { endpoint: 'https://printer.local/mcp' },
      { endpoint: 'https://hooks.example.com/mcp', slug: 'Not A Slug' },
      { catalogue: target().catalogueEntry, endpoint: 'https://hooks.example.com/mcp' },
      { catalogue: 'no-such-entry' },
      {},
      // A stored credential may not set a header the connection sets itself (the contract's list).
      { endpoint: 'https://hooks.example.com/mcp', slug: 'framed', auth: { header: 'Host', value: 'x' } },
      {
        endpoint: 'https://hooks.example.com/mcp',
        slug: 'framed',
        auth: { header: 'content-length', value: '0' },
      },
    ]) {
      const answer = await rawCall(target(), owner, 'POST', `/v1/identities/${owner.slug}/integrations`, {
        body,
      });
      expect({ body, status: answer.status }).toEqual({ body, status: 400 });
    }
  });

  it('authorizeIntegration: an upstream behind OAuth hands out a new authorization address each time', async () => {
    const [owner] = await target().pair();
    const name = target().oauthCatalogueEntry;
    const created = await owner.api.integrations.create(owner.slug, { catalogue: name });
    expect(created.integration).toMatchObject({ slug: name, status: 'needs_authorization' });
    expect(created.trouble).toBe(AUTHORIZATION_NEEDED_TROUBLE);
    const first = new URL(created.authorization_url ?? 'missing:');
    const again = await owner.api.integrations.authorize(owner.slug, name, { scope: 'tools' });
    const url = new URL(again.authorization_url);
    expect(url.protocol).toMatch(/^https?:$/);
    expect(url.searchParams.get('scope')).toBe('tools');
    // A new ceremony: its state is not the one creation started.
    expect(url.searchParams.get('state')).toEqual(expect.any(String));
    expect(url.searchParams.get('state')).not.toBe(first.searchParams.get('state'));
  });

  it(`caps: ${MAX_INTEGRATIONS_PER_IDENTITY} integrations per identity, then 403 until one is deleted`, async () => {
    const [owner] = await target().pair();
    const catalogue = target().catalogueEntry;
    for (let i = 0; i < MAX_INTEGRATIONS_PER_IDENTITY; i++) {
      await owner.api.integrations.create(owner.slug, { catalogue, slug: `cap-${i}` });
    }
    await expectApiError(
      owner.api.integrations.create(owner.slug, { catalogue, slug: 'cap-over' }),
      403,
      'forbidden',
    );
    await owner.api.integrations.delete(owner.slug, 'cap-0');
    const again = await owner.api.integrations.create(owner.slug, { catalogue, slug: 'cap-again' });
    expect(again.integration.slug).toBe('cap-again');
  });
}
