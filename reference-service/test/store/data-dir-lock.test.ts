import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../src/store/data-dir-lock.js';
import { buildEntryPoint } from '../support/service-process.js';

const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));

describe('the PGlite data-dir lock', () => {
  it('keeps a second holder out until released', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-lock-'));
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    lock.release();
    lockDataDir(dir).release();
  });

  it('takes over a lock left by a process that is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-lock-'));
    // A pid far above any pid_max.
    await writeFile(join(dir, 'service.lock'), '2147483646');
    lockDataDir(dir).release();
  });
});

describe('two service processes on one data dir', () => {
  let built: Awaited<ReturnType<typeof buildEntryPoint>>;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    built = await buildEntryPoint();
  }, 60_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await built.remove();
  });

  function startProcess(dataDir: string) {
    const child = spawn(process.execPath, [built.main], {
      // Resolve packages from the repository, as the real dist/ does.
      cwd: PACKAGE_DIR,
      env: { ...process.env, SVC_DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'development', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, output: () => output, exited };
  }

  async function waitFor(process: ReturnType<typeof startProcess>, text: string, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!process.output().includes(text)) {
      if (Date.now() > deadline || process.child.exitCode !== null) {
        throw new Error(`never printed "${text}"; output:\n${process.output()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('refuses to start the second, and the first shuts down cleanly', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-data-'));
    const first = startProcess(dataDir);
    await waitFor(first, 'listening on http://', 60_000);
    const baseUrl = /listening on (http:\/\/[^\s]+)/.exec(first.output())![1]!;
    expect((await fetch(`${baseUrl}/v1/openapi.json`)).status).toBe(200);

    const second = startProcess(dataDir);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain('is in use by process');

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    // The lock is released on shutdown: a new process starts, and says the sandbox is already seeded.
    const third = startProcess(dataDir);
    await waitFor(third, 'already seeded', 60_000);
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  }, 120_000);
});
