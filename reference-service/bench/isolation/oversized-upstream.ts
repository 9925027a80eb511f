/**
 * The service's memory under the oversized-upstream attack (issue 40, item 4): the service as `npm start`
 * runs it (PGlite), and real MCP servers of the official SDK answering tools/list with 100 MB of tool
 * descriptions, over Streamable HTTP and over HTTP+SSE, two createIntegration calls at once on each. The
 * figure is the process's peak resident memory during the attack (VmHWM, reset after warming up) over
 * its resident memory at idle; the target is within 100 MB.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  describedTools,
  startSseUpstream,
  startStreamableUpstream,
  type Upstream,
} from '../../test/integrations/upstreams.js';
import { statusBytes } from '../../test/support/proc-status.js';
import { type Row, verdict } from '../support/table.js';
import { targetCommand } from '../support/target-process.js';

/** The service's folder: this file is bundled into node_modules/.cache/svc-bench/ below it. */
const PACKAGE_DIR = fileURLToPath(new URL('../../../', import.meta.url));
const HEADROOM_MB = 100;
const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;

/** 100 tools of 1 MiB descriptions: a tools/list answer of about 100 MB. */
const hundredMegabytes = describedTools(100, 1024 * 1024);

/** Starts dist/main.js (built first when stale, as `npm start` does) and reads its URL and sandbox key. */
async function startService(dataDir: string): Promise<{ child: ChildProcess; url: string; key: string }> {
  spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: PACKAGE_DIR, stdio: 'ignore' });
  const command = targetCommand({
    PORT: '0',
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    SVC_DATA_DIR: dataDir,
    SVC_PORTAL_DIR: join(dataDir, 'none'),
    SVC_ALLOW_LOCALHOST_INTEGRATIONS: '1',
    SVC_FIRST_START_SECRETS: 'stdout',
  });
  const child = spawn(process.execPath, [...command.flags, 'dist/main.js'], {
    cwd: PACKAGE_DIR,
    env: command.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)\s/.exec(output)?.[1];
    const key = /API key \(all scopes\):\s+(svc_\S+)/.exec(output)?.[1];
    if (url && key) return { child, url, key };
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`the service did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function runOversizedUpstreamBench(): Promise<Row[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-oversized-'));
  const upstreams: Upstream[] = [];
  const service = await startService(dataDir);
  const pid = service.child.pid!;
  try {
    let made = 0;
    const create = async (endpoint: string, transport: 'sse' | 'streamable-http') => {
      const answer = await fetch(`${service.url}/v1/identities/sandbox-alice/integrations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: `up-${made++}`, endpoint, transport }),
      });
      return {
        status: answer.status,
        body: (await answer.json()) as { integration?: { status?: string }; tools?: number },
      };
    };
    const small = await startStreamableUpstream();
    upstreams.push(small);
    for (let i = 0; i < 3; i++) await create(small.url, 'streamable-http');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idle = await statusBytes(pid, 'VmRSS');
    await writeFile(`/proc/${pid}/clear_refs`, '5');

    let sampled = 0;
    const sampler = setInterval(() => {
      statusBytes(pid, 'VmRSS').then(
        (rss) => {
          sampled = Math.max(sampled, rss);
        },
        () => {},
      );
    }, 50);
    const outcomes: { status: number; body: { integration?: { status?: string }; tools?: number } }[] = [];
    try {
      for (const transport of ['streamable-http', 'sse'] as const) {
        const upstream =
          transport === 'sse'
            ? await startSseUpstream(hundredMegabytes)
            : await startStreamableUpstream(undefined, hundredMegabytes);
        upstreams.push(upstream);
        outcomes.push(
          ...(await Promise.all([create(upstream.url, transport), create(upstream.url, transport)])),
        );
      }
    } finally {
      clearInterval(sampler);
    }
    const peak = Math.max(await statusBytes(pid, 'VmHWM'), sampled);
    const clear = outcomes.every(
      (one) => one.status === 201 && one.body.integration?.status !== 'healthy' && one.body.tools === 0,
    );
    return [
      ['oversized upstream: resident memory at idle (PGlite)', mb(idle), '', ''],
      ['oversized upstream: peak during 4 createIntegration on 100 MB tools/list', mb(peak), '', ''],
      [
        'oversized upstream: peak over idle',
        mb(peak - idle),
        `≤ ${HEADROOM_MB} MB`,
        verdict(peak - idle <= HEADROOM_MB * 1048576),
      ],
      [
        'oversized upstream: answers',
        outcomes
          .map((one) => `${one.status} ${one.body.integration?.status}, ${one.body.tools} tools`)
          .join('; '),
        '201, not healthy, 0 tools',
        verdict(clear),
      ],
    ];
  } finally {
    if (service.child.exitCode === null) {
      const exited = new Promise((resolve) => service.child.once('exit', resolve));
      service.child.kill('SIGTERM');
      await exited;
    }
    for (const upstream of upstreams) await upstream.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
