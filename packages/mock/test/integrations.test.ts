import { NotFoundError } from '@svc-kit/client';
import { describe, expect, test } from 'vitest';
import { apiKeyClient, FIXTURE, SLUG, useSandbox } from './support.js';

const sandbox = useSandbox({ data: FIXTURE, randomSeed: 7 });
const client = apiKeyClient();

describe('integrations are stateful', () => {
  test('a catalogue entry connects with its slug, transport and tool count, and is listed', async () => {
    const created = await client.integrations.create(SLUG, { catalogue: 'weather', transport: 'sse' });
    expect(created.integration).toMatchObject({ slug: 'weather', transport: 'sse', status: 'healthy' });
    expect(created.tools).toBe(2);
    const { integrations } = await client.integrations.list(SLUG);
    expect(integrations.map((i) => i.slug)).toEqual(['notes', 'weather']);
  });

  test('an address connects too; its slug comes from the body, or else from the hostname', async () => {
    const named = await client.integrations.create(SLUG, {
      endpoint: 'https://tools.example.org/mcp',
      slug: 'my-tools',
    });
    expect(named).toMatchObject({
      integration: { slug: 'my-tools', transport: 'streamable-http' },
      tools: 0,
    });
    const derived = await client.integrations.create(SLUG, { endpoint: 'https://search.example.org/mcp' });
    // As the service: the whole host, `.` and other characters as `-`.
    expect(derived.integration.slug).toBe('search-example-org');
    // An address that is a catalogue entry's reaches that upstream, tools included.
    const known = await client.integrations.create(SLUG, {
      endpoint: 'https://weather.example.org/mcp',
      slug: 'wx',
    });
    expect(known.tools).toBe(2);
  });

  test('an OAuth upstream needs authorization; the credential is never shown', async () => {
    const created = await client.integrations.create(SLUG, { catalogue: 'calendar' });
    expect(created.integration.status).toBe('needs_authorization');
    expect(new URL(created.authorization_url!).searchParams.get('integration')).toBe(created.integration.id);
    const withAuth = await client.integrations.create(SLUG, {
      catalogue: 'calendar',
      slug: 'calendar-2',
      auth: { header: 'Authorization', value: 'Bearer upstream-secret' },
    });
    expect(withAuth).toMatchObject({ integration: { status: 'healthy' }, authorization_url: null });
    expect(JSON.stringify(await client.integrations.list(SLUG))).not.toContain('upstream-secret');
  });

  test('exposure: set bumps the version, entries keep extra fields, stale names tools the catalog lacks', async () => {
    const first = await client.integrations.setExposure(SLUG, 'notes', {
      entries: [
        { tool: 'search', mode: 'mapped', alias: 'find' },
        { tool: 'gone', mode: 'agent' },
      ],
    });
    expect(first).toEqual({ version: 1 });
    const exposure = await client.integrations.getExposure(SLUG, 'notes');
    expect(exposure).toMatchObject({
      version: 1,
      entries: [
        { tool: 'search', mode: 'mapped', alias: 'find' },
        { tool: 'gone', mode: 'agent' },
      ],
      stale: ['gone'],
    });
    expect(await client.integrations.setExposure(SLUG, 'notes', { entries: [] })).toEqual({ version: 2 });
    expect(sandbox.state.exposure(SLUG, 'notes')).toMatchObject({ entries: [], stale: [], version: 2 });
  });

  test('delete removes the integration and its exposure', async () => {
    await client.integrations.delete(SLUG, 'notes');
    expect((await client.integrations.list(SLUG)).integrations).toEqual([]);
    await expect(client.integrations.getExposure(SLUG, 'notes')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.integrations.authorize(SLUG, 'notes')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.integrations.delete(SLUG, 'notes')).rejects.toBeInstanceOf(NotFoundError);
  });
});
