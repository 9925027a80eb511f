import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CATALOG_BOUNDS } from '../../src/features/integrations/rules.js';
import { DEFAULT_MAX_ANSWER_BYTES } from '../../src/features/integrations/settings.js';
import { createParty, type Instance, type Party, TestClock } from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import { useStore } from '../support/service-lifecycle.js';
import { startIntegrationInstance } from './support.js';
import {
  describedTools,
  type ExtraTools,
  startSseUpstream,
  startStreamableUpstream,
  type Upstream,
} from './upstreams.js';

const schemaTool: ExtraTools = (mcp) => {
  mcp.registerTool(
    'wide',
    {
      description: 'wide schema',
      inputSchema: { text: z.string().describe('s'.repeat(CATALOG_BOUNDS.toolSchema)) },
    },
    async () => ({ content: [] }),
  );
};

/** An upstream asking for OAuth whose protected-resource metadata is `bytes` long. */
async function startHugeMetadataUpstream(bytes: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url?.startsWith('/.well-known/oauth-protected-resource')) {
      const filler = 'x'.repeat(bytes);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"resource":"${base}/mcp","authorization_servers":["${base}"],"filler":"${filler}"}`);
      return;
    }
    req.resume();
    res
      .writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`,
      })
      .end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(BACKENDS)('answers and catalogs read from upstreams are bounded on $name', (backend) => {
  const clock = new TestClock();
  const store = useStore(backend);
  let one: Instance;
  let alice: Party;
  const upstreams: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    one = await startIntegrationInstance(store, clock, { allowLocalhost: true });
    alice = await createParty(one, 'alice');
  });
  afterAll(async () => {
    await one?.close();
    for (const upstream of upstreams) await upstream.close();
  });

  const started = async <U extends { close(): Promise<void> }>(upstream: Promise<U>): Promise<U> => {
    const ready = await upstream;
    upstreams.push(ready);
    return ready;
  };

  /** What the row keeps of the catalog, in characters: nothing oversized is ever stored. */
  const storedCatalogChars = async (slug: string) => {
    const [row] = await store.db.query<{ n: number }>(
      'SELECT length(catalog)::int AS n FROM integrations WHERE slug = $1',
      [slug],
    );
    return row?.n;
  };

  const expectRefusedCatalog = async (slug: string, created: { tools: number; trouble: string | null }) => {
    expect(created.tools).toBe(0);
    expect(await storedCatalogChars(slug)).toBe(2);
    const exposure = await alice.api.integrations.getExposure(alice.slug, slug);
    expect(exposure.catalog).toEqual([]);
    await alice.api.integrations.delete(alice.slug, slug);
  };

  // 12 descriptions of 1 MiB: an answer about six times the cap, on each transport.
  it.each([
    ['Streamable HTTP', 'streamable-http' as const],
    ['HTTP+SSE', 'sse' as const],
  ])('drops a tools/list answer over the cap unread over %s, and says so', async (_name, transport) => {
    const extra = describedTools(12, 1024 * 1024);
    const upstream: Upstream = await started(
      transport === 'sse' ? startSseUpstream(extra) : startStreamableUpstream(undefined, extra),
    );
    const slug = `huge-${transport}`;
    const created = await alice.api.integrations.create(alice.slug, {
      slug,
      endpoint: upstream.url,
      transport,
    });
    expect(created.integration.status).toBe('error');
    expect(created.trouble).toBe(
      `the upstream sent an answer over ${DEFAULT_MAX_ANSWER_BYTES} bytes; it was dropped unread`,
    );
    await expectRefusedCatalog(slug, created);
  });

  it('refuses a catalog with a tool whose description is over its bound', async () => {
    const upstream = await started(
      startStreamableUpstream(undefined, describedTools(1, CATALOG_BOUNDS.toolDescription + 1)),
    );
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'wordy',
      endpoint: upstream.url,
    });
    expect(created.integration.status).toBe('error');
    expect(created.trouble).toBe(
      `a tool of the upstream has a description over ${CATALOG_BOUNDS.toolDescription} characters`,
    );
    await expectRefusedCatalog('wordy', created);
  });

  it('refuses a catalog with a tool whose input schema is over its bound', async () => {
    const upstream = await started(startSseUpstream(schemaTool));
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'wide',
      endpoint: upstream.url,
      transport: 'sse',
    });
    expect(created.integration.status).toBe('error');
    expect(created.trouble).toBe(
      `a tool of the upstream has an input schema over ${CATALOG_BOUNDS.toolSchema} characters`,
    );
    await expectRefusedCatalog('wide', created);
  });

  it('refuses a catalog whose tools are each within bounds but over the catalog’s bound together', async () => {
    // 200 tools of 6,000 characters: about 1.2 MB, within the answer cap, over the catalog's bound.
    const upstream = await started(startStreamableUpstream(undefined, describedTools(200, 6000)));
    const created = await alice.api.integrations.create(alice.slug, { slug: 'many', endpoint: upstream.url });
    expect(created.integration.status).toBe('error');
    expect(created.trouble).toBe(
      `the upstream's catalog of tools is over ${CATALOG_BOUNDS.catalog} characters`,
    );
    await expectRefusedCatalog('many', created);
  });

  it('keeps a catalog just within its bounds whole', async () => {
    const upstream = await started(startStreamableUpstream(undefined, describedTools(100, 6000)));
    const created = await alice.api.integrations.create(alice.slug, { slug: 'fits', endpoint: upstream.url });
    expect(created.integration.status).toBe('healthy');
    expect(created.tools).toBe(102);
    expect(await storedCatalogChars('fits')).toBeGreaterThan(600_000);
    await alice.api.integrations.delete(alice.slug, 'fits');
  });

  it('drops OAuth metadata over the cap unread', async () => {
    const upstream = await started(startHugeMetadataUpstream(DEFAULT_MAX_ANSWER_BYTES * 3));
    const created = await alice.api.integrations.create(alice.slug, {
      slug: 'meta',
      endpoint: upstream.url,
      transport: 'streamable-http',
    });
    expect(created.integration.status).toBe('error');
    expect(created.trouble).toBe(
      `the upstream sent an answer over ${DEFAULT_MAX_ANSWER_BYTES} bytes; it was dropped unread`,
    );
    expect(created.authorization_url).toBeNull();
    await expectRefusedCatalog('meta', created);
  });
});
