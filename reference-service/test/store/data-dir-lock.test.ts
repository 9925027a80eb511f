import type { ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../src/store/data-dir-lock.js';
import { buildEntryPoint, type ServiceProcess, spawnService } from '../support/service-process.js';

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

  function startProcess(dataDir: string): ServiceProcess {
    const service = spawnService(built.main, { SVC_DATA_DIR: dataDir });
    children.push(service.child);
    return service;
  }

  it('refuses to start the second, and the first shuts down cleanly', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-data-'));
    const first = startProcess(dataDir);
    const baseUrl = await first.ready();
    expect((await fetch(`${baseUrl}/v1/openapi.json`)).status).toBe(200);

    const second = startProcess(dataDir);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain('is in use by process');

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    // The lock is released on shutdown: a new process starts, and says the sandbox is already seeded.
    const third = startProcess(dataDir);
    await third.printed('already seeded');
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  }, 120_000);
});
