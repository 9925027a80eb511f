// The sequence of the "Develop locally" guide, with real processes: the reference service's entry point
// that `npm start` runs, `npx svc-webhooks listen` and `npx svc-webhooks trigger` as typed in the guide's
// terminals, and the quickstart's Express app (`server.js`, as pasted) printing the event it verified.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../support/free-port';
import { docsDir } from '../support/paths';

const repo = path.resolve(docsDir, '..');
const serviceMain = path.join(repo, 'reference-service', 'dist', 'main.js');
const guide = readFileSync(path.join(docsDir, 'guide', 'develop-locally.md'), 'utf8');

interface Running {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

function start(command: string, args: string[], env: Record<string, string>): Running {
  const child = spawn(command, args, {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return {
    child,
    output: () => output,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`${command} ${args.join(' ')} never printed ${pattern}; output:\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

/** The guide's command, with the URL of the app the test started in place of localhost:3000. */
function guideCommand(pattern: RegExp): string[] {
  const line = pattern.exec(guide)?.[0];
  expect(line, `the guide shows ${pattern}`).toBeDefined();
  return line!.trim().split(/\s+/);
}

const processes: Running[] = [];
let dataDir: string;

beforeAll(() => {
  expect(existsSync(serviceMain), 'npm run build builds the reference service').toBe(true);
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-docs-listen-'));
});
afterAll(async () => {
  for (const running of processes) running.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

it("runs the guide's three terminals: the quickstart's Express app prints the triggered event", async () => {
  // Terminal 1: the entry point `npm start` runs once built (without its GC and allocator settings).
  const service = start(process.execPath, [serviceMain], {
    SVC_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    // In a terminal the key is printed; this test's stdout is a pipe, so it asks for that explicitly.
    SVC_FIRST_START_SECRETS: 'stdout',
  });
  processes.push(service);
  const baseUrl = (await service.waitFor(/listening on (http:\/\/\S+)\s/))[1]!;
  const apiKey = (await service.waitFor(/API key \(all scopes\):\s+(svc_\S+)/))[1]!;
  const env = { SVC_API_KEY: apiKey, SVC_BASE_URL: baseUrl, NO_COLOR: '1' };

  // The app, with the listeners' secret as the guide's script line gets it.
  const printSecret = guideCommand(/npx --no svc-webhooks listen --print-secret/);
  const secretRun = start('npx', [...printSecret.slice(1), ...[]], env);
  const secret = (await secretRun.waitFor(/^(whsec_\S+)\n/m))[1]!;
  const port = await freePort();
  const app = start(process.execPath, [path.join(docsDir, 'snippets', 'quickstart', 'server.js')], {
    PORT: String(port),
    SVC_WEBHOOK_SECRET: secret,
  });
  processes.push(app);
  await app.waitFor(/Receiving webhooks on http:\/\/localhost:\d+\/webhooks/);
  const appUrl = `http://127.0.0.1:${port}/webhooks`;

  // Terminal 2.
  const listenArgs = guideCommand(
    /npx --no svc-webhooks listen --forward-to http:\/\/localhost:3000\/webhooks/,
  );
  const listen = start('npx', [...listenArgs.slice(1, -1), appUrl], env);
  processes.push(listen);
  await listen.waitFor(/^Ready\. Forwarding every event/m);
  expect(listen.output()).toContain(`Signing secret: ${secret}`);

  // Terminal 3.
  const trigger = start('npx', guideCommand(/npx --no svc-webhooks trigger message\.received/).slice(1), env);
  const eventId = (await trigger.waitFor(/^(evt_[0-9a-f]+)\s+message\.received/m))[1]!;
  expect(await new Promise((resolve) => trigger.child.on('exit', resolve))).toBe(0);

  await listen.waitFor(new RegExp(`message\\.received\\s+${eventId}\\s+-> 200`));
  await app.waitFor(/^message\.received: thread thr_\w+ for sandbox-alice$/m);
});
