import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialisedDataDir } from '../support/pglite-snapshot.js';
import { statusBytes } from '../support/proc-status.js';
import { buildEntryPoint, type ServiceProcess, spawnService } from '../support/service-process.js';
import { describedTools, startSseUpstream, startStreamableUpstream, type Upstream } from './upstreams.js';

/** The bound the issue sets: the service's memory under the attack stays within this of its idle memory. */
const HEADROOM_BYTES = 100 * 1024 * 1024;

/** 100 tools of 1 MiB descriptions: a tools/list answer of about 100 MB. */
const hundredMegabytes = describedTools(100, 1024 * 1024);

describe('an upstream answering tools/list with 100 MB, against the service as a process', () => {
  let entry: Awaited<ReturnType<typeof buildEntryPoint>>;
  let service: ServiceProcess;
  let dataDir: string;
  let baseUrl: string;
  let key: string;
  const upstreams: Upstream[] = [];

  beforeAll(async () => {
    entry = await buildEntryPoint();
    dataDir = await initialisedDataDir('svc-oversized-');
    service = spawnService(entry.main, {
      SVC_DATA_DIR: dataDir,
      SVC_PORTAL_DIR: join(dataDir, 'none'),
      SVC_ALLOW_LOCALHOST_INTEGRATIONS: '1',
    });
    baseUrl = await service.ready(120_000);
    await service.printed('API key (all scopes):');
    key = /API key \(all scopes\):\s+(svc_\S+)/.exec(service.output())![1]!;
  }, 180_000);
  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
    for (const upstream of upstreams) await upstream.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await entry?.remove();
  });

  let made = 0;
  const create = async (endpoint: string, transport: 'sse' | 'streamable-http') => {
    const response = await fetch(`${baseUrl}/v1/identities/sandbox-alice/integrations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: `up-${made++}`, endpoint, transport }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('answers with a clear status, stores nothing of it, and stays within 100 MB of its idle memory', async () => {
    const pid = service.child.pid!;
    const small = await startStreamableUpstream();
    upstreams.push(small);
    // Warm up the paths the attack takes (an exchange, a stored catalog) before idle memory is read.
    for (let i = 0; i < 3; i++) {
      const warm = await create(small.url, 'streamable-http');
      expect(warm.body).toMatchObject({ integration: { status: 'healthy' }, tools: 2 });
    }
    const idle = await statusBytes(pid, 'VmRSS');
    // From here VmHWM is the peak of the attack alone.
    await writeFile(`/proc/${pid}/clear_refs`, '5');

    for (const transport of ['streamable-http', 'sse'] as const) {
      const upstream =
        transport === 'sse'
          ? await startSseUpstream(hundredMegabytes)
          : await startStreamableUpstream(undefined, hundredMegabytes);
      upstreams.push(upstream);
      const answers = await Promise.all([create(upstream.url, transport), create(upstream.url, transport)]);
      for (const answer of answers) {
        expect(answer.status).toBe(201);
        expect(answer.body).toMatchObject({
          integration: { status: 'error' },
          tools: 0,
          trouble: expect.stringMatching(
            /^the upstream sent an answer over \d+ bytes; it was dropped unread$/,
          ),
        });
      }
    }
    const peak = await statusBytes(pid, 'VmHWM');
    expect(peak - idle).toBeLessThan(HEADROOM_BYTES);

    // Nothing oversized is kept: each attacked integration's exposure is an empty catalog.
    for (let i = 3; i < made; i++) {
      const exposure = await fetch(`${baseUrl}/v1/identities/sandbox-alice/integrations/up-${i}/exposure`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(exposure.status).toBe(200);
      expect(((await exposure.json()) as { catalog: unknown[] }).catalog).toEqual([]);
    }
  }, 120_000);
});
