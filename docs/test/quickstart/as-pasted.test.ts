import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port';
import { docsDir } from '../support/paths';
import { type Block, quickstartBlocks } from './blocks';

const run = promisify(execFile);
const repoDir = path.resolve(docsDir, '..');
const page = quickstartBlocks(path.join(docsDir, 'guide', 'quickstart.md'));

/** The one block of a section with that title (a tab title, or the file name when there are no tabs). */
function block(section: string, title: string): Block {
  const found = page.filter(
    (candidate) => candidate.section.startsWith(section) && candidate.title === title,
  );
  if (found.length !== 1)
    throw new Error(`expected one block "${title}" under "${section}", found ${found.length}`);
  return found[0] as Block;
}

/** A long-running command of the page, its output collected, stopped at the end of the test. */
class Running {
  output = '';
  private readonly child: ChildProcess;
  private readonly exited: Promise<unknown>;

  constructor(script: string, cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd, env, detached: true });
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
    });
  }

  /** Waits (polling, no fixed delay) until the output contains `text`, or fails with the output so far. */
  async waitFor(text: string, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.output.includes(text)) {
      if (this.child.exitCode !== null) throw new Error(`exited (${this.child.exitCode}):\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`"${text}" never appeared:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Stops the whole process group (bash, npx, node) that this command started. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null && this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, 'SIGTERM');
      } catch {
        // Already gone between the check and the kill.
      }
    }
    await this.exited;
  }
}

const workDir = mkdtempSync(path.join(tmpdir(), 'svc-docs-quickstart-'));
const running: Running[] = [];
let tarball: string;

function start(script: string, cwd: string, env: NodeJS.ProcessEnv): Running {
  const process_ = new Running(script, cwd, env);
  running.push(process_);
  return process_;
}

/** Runs a short command of the page to its end, as bash runs a pasted block. */
async function shell(script: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${script}`], {
    cwd,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/** The packages' one version number (they are released together). */
const version: string = JSON.parse(
  readFileSync(path.join(repoDir, 'packages', 'webhooks', 'package.json'), 'utf8'),
).version;

/** The page's "not on the npm registry yet" box, and the tarball names it gives (braces expanded). */
const unpublishedBox = readFileSync(path.join(docsDir, 'guide', 'partials', 'unpublished.md'), 'utf8');
function boxTarballs(): string[] {
  return [...unpublishedBox.matchAll(/packs\/svc-kit-(?:\{([a-z,]+)\}|([a-z]+))-([0-9.]+)\.tgz/g)].flatMap(
    ([, names, name, boxVersion]) =>
      (names ?? name ?? '').split(',').map((each) => `svc-kit-${each}-${boxVersion}.tgz`),
  );
}

beforeAll(async () => {
  // The package as npm would download it, packed from this checkout the way the page's box says until it
  // is published: `npm run pack:local` (the builds are current here, so it only packs), then the tarball.
  await shell('npm run --silent pack:local', repoDir);
  tarball = path.join(repoDir, 'packs', `svc-kit-webhooks-${version}.tgz`);
}, 300_000);

it('packs, with `npm run pack:local`, every tarball the "not on npm yet" box names', () => {
  const named = boxTarballs();
  expect(new Set(named)).toEqual(
    new Set(['webhooks', 'contract', 'client', 'mock'].map((name) => `svc-kit-${name}-${version}.tgz`)),
  );
  for (const file of named) expect(statSync(path.join(repoDir, 'packs', file)).size).toBeGreaterThan(0);
});

afterAll(async () => {
  await Promise.all(running.map((process_) => process_.stop()));
  rmSync(workDir, { recursive: true, force: true });
});

/** What the page says, with only what a test cannot share changed: the packed SDK and free ports. */
function asPasted(text: string, ports: { receiver: number; service: number }): string {
  return (
    text
      // The page names the tarball of the clone beside the project (the box's `../svc-kit/packs/`); here the
      // packs are this checkout's.
      .replace(/npm install \.\.\/svc-kit\/packs\/svc-kit-webhooks-([0-9.]+)\.tgz/g, (_, named) => {
        expect(named).toBe(version);
        return `npm install --prefer-offline --no-audit --no-fund ${tarball}`;
      })
      .replace(/npm install --save-dev/g, 'npm install --prefer-offline --no-audit --no-fund --save-dev')
      .replaceAll('localhost:3000', `localhost:${ports.receiver}`)
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.service}`)
      .replaceAll(
        'npm run --silent sandbox --',
        `node ${path.join(repoDir, 'reference-service', 'dist', 'sandbox.js')}`,
      )
  );
}

describe.each([
  { flavour: 'JavaScript', file: 'server.js' },
  { flavour: 'TypeScript', file: 'server.ts' },
])('the quickstart, $flavour tab, pasted into an empty folder', ({ flavour, file }) => {
  const root = path.join(workDir, flavour);
  const project = path.join(root, 'my-receiver');
  const clone = path.join(root, 'svc-kit');
  let ports: { receiver: number; service: number };
  // The receiver reads PORT (default 3000, as the page says); the test gives it a free one.
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    mkdirSync(clone, { recursive: true });
    ports = { receiver: await freePort(), service: await freePort() };
    env = { ...process.env, npm_config_yes: 'true', PORT: String(ports.receiver) };
  });

  it('sets up the project as an ES module with the package installed', async () => {
    await shell(asPasted(block('1.', flavour).text, ports), root, env);
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8'));
    expect(manifest.type).toBe('module');
    expect(Object.keys(manifest.dependencies)).toEqual(['@svc-kit/webhooks', 'express']);
    if (flavour === 'TypeScript') expect(manifest.devDependencies).toHaveProperty('tsx');
  }, 300_000);

  it('starts, logs where it listens, and runs the handler for a test delivery from the CLI', async () => {
    copyFileSync(block('2.', `${flavour} (${file})`).source, path.join(project, file));
    copyFileSync(block('4.', 'event.json').source, path.join(project, 'event.json'));
    const receiver = start(asPasted(block('3.', flavour).text, ports), project, env);
    await receiver.waitFor(`Receiving webhooks on http://localhost:${ports.receiver}/webhooks`);

    const answer = await shell(asPasted(block('4.', 'send-test-delivery.sh').text, ports), project, env);
    expect(JSON.parse(answer)).toEqual({ received: true });
    await receiver.waitFor('message.received: thread thr_01J9Z3V7A1B2C3D4E5F6G7H8J9 for support-bot');
    await receiver.stop();
  }, 180_000);

  it('receives a real delivery signed by the reference service', async () => {
    // `npm start` builds the service first; the build is already done, so the test runs the entry point it
    // starts (dist/main.js; its GC and allocator settings change timing and memory only).
    // As pasted: no setting admits the receiver on localhost, the local sandbox does.
    expect(block('5.', 'service-start.sh').text).toMatch(/^npm start$/m);
    expect(block('5.', 'service-start.sh').text).not.toContain('SVC_');
    const serviceEnv = {
      ...process.env,
      PORT: String(ports.service),
      HOST: '127.0.0.1',
      SVC_DATA_DIR: path.join(root, 'service-data'),
      LOG_LEVEL: 'warn',
    };
    const service = start(
      `node ${path.join(repoDir, 'reference-service', 'dist', 'main.js')}`,
      repoDir,
      serviceEnv,
    );
    await service.waitFor('listening on');

    const endpoint = JSON.parse(
      await shell(asPasted(block('5.', 'service-register.sh').text, ports), clone, serviceEnv),
    );
    expect(endpoint.endpoint.url).toBe(`http://localhost:${ports.receiver}/webhooks`);
    expect(typeof endpoint.secret).toBe('string');

    const receiver = start(asPasted(block('5.', flavour).text, ports), project, env);
    await receiver.waitFor('Receiving webhooks on');

    const triggered = await shell(asPasted(block('5.', 'service-trigger.sh').text, ports), clone, serviceEnv);
    expect(triggered).toMatch(/event evt_\w+ \(message\.received\) emitted for sandbox-alice/);
    await receiver.waitFor('for sandbox-alice');
    expect(receiver.output).toMatch(/message\.received: thread thr_\w+ for sandbox-alice/);
    expect(receiver.output).not.toContain('refused delivery');
    // The delivery log command as pasted: it mints its own key.
    const log = JSON.parse(
      await shell(asPasted(block('5.', 'service-deliveries.sh').text, ports), clone, serviceEnv),
    );
    expect(log.deliveries[0]).toMatchObject({
      event_type: 'message.received',
      id: expect.stringMatching(/^dlv_/),
    });
    await receiver.stop();
    await service.stop();
  }, 300_000);
});
