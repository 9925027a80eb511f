import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../src/store/data-dir-lock.js';
import { buildEntryPoint, type ServiceProcess, spawnService } from '../support/service-process.js';

const BOOT_ID = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
const PID_NAMESPACE = readlinkSync('/proc/self/ns/pid');

function startTimeOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

async function lockFileWith(holder: object): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-lock-'));
  await writeFile(join(dir, 'service.lock'), JSON.stringify(holder));
  return dir;
}

describe('the PGlite data-dir lock', () => {
  it('keeps a second holder out until released', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-lock-'));
    const lock = await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toThrow(DataDirLockedError);
    lock.release();
    (await lockDataDir(dir)).release();
  });

  it('takes over a lock left by a process that is gone, in the old format too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-lock-'));
    // A pid far above any pid_max.
    await writeFile(join(dir, 'service.lock'), '2147483646');
    (await lockDataDir(dir)).release();
  });

  it('takes over a lock whose PID now belongs to another process (PID reuse), and only then', async () => {
    const other = spawn('sleep', ['60']);
    try {
      const pid = other.pid!;
      await new Promise((resolve) => other.once('spawn', resolve));
      const base = { pid, boot: BOOT_ID, pidNamespace: PID_NAMESPACE };
      // The PID is alive, but its process started at another time than the recorded holder: not the holder.
      const reused = await lockFileWith({ ...base, start: String(Number(startTimeOf(pid)) - 1) });
      (await lockDataDir(reused)).release();
      // Recorded with its real start time, the same live process is the holder.
      const held = await lockFileWith({ ...base, start: startTimeOf(pid) });
      await expect(lockDataDir(held)).rejects.toThrow(DataDirLockedError);
      // A lock naming this very process's PID from an earlier life (another start time) is taken over.
      const ours = await lockFileWith({ ...base, pid: process.pid, start: '1' });
      (await lockDataDir(ours)).release();
      // A lock from before the last boot is gone whatever its PID.
      const beforeBoot = await lockFileWith({ ...base, start: startTimeOf(pid), boot: 'another-boot' });
      (await lockDataDir(beforeBoot)).release();
    } finally {
      other.kill('SIGKILL');
    }
  });
});

describe('the service as a process: start-up refusals and the data-dir lock', () => {
  let built: Awaited<ReturnType<typeof buildEntryPoint>>;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    built = await buildEntryPoint();
  }, 60_000);

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
      // Namespaced services lead their own process group: end the wrapper and the service together.
      if (child.spawnargs[0] === 'unshare') process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGTERM');
    }
    await built.remove();
  });

  function startProcess(dataDir: string, wrapper: readonly string[] = []): ServiceProcess {
    const service = spawnService(built.main, { SVC_DATA_DIR: dataDir }, wrapper);
    children.push(service.child);
    return service;
  }

  it('refuses to start in production without SVC_PUBLIC_URL', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-data-'));
    const production = spawnService(built.main, { SVC_DATA_DIR: dataDir, NODE_ENV: 'production' });
    children.push(production.child);
    expect(await production.exited).toBe(1);
    expect(production.output()).toContain('SVC_PUBLIC_URL is required');
  }, 60_000);

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
    // The lock is released on shutdown: a new process starts, and says the sandbox was seeded before.
    const third = startProcess(dataDir);
    await third.printed('already seeded');
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  }, 120_000);

  // Each service runs as PID 1 of a PID namespace of its own, as in a container. `--user
  // --map-root-user` lets an unprivileged user create the namespaces too (root does not need it).
  const CONTAINER = ['unshare', '--user', '--map-root-user', '--pid', '--fork', '--mount-proc'];

  it('restarts as PID 1 after a PID-1 service was killed, and keeps a live one in another namespace', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-data-'));
    const first = startProcess(dataDir, CONTAINER);
    await first.ready();
    const holder = JSON.parse(await readFile(join(dataDir, 'service.lock'), 'utf8')) as { pid: number };
    expect(holder.pid).toBe(1);

    // Another "container" while the first runs: its heartbeat shows it alive, so the second is refused.
    const second = startProcess(dataDir, CONTAINER);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain('is in use by process 1');

    // The first container is killed outright: its lock file stays behind, naming PID 1.
    process.kill(-first.child.pid!, 'SIGKILL');
    await first.exited;
    expect(JSON.parse(await readFile(join(dataDir, 'service.lock'), 'utf8'))).toMatchObject({ pid: 1 });

    // The next start is PID 1 again, in a new namespace: it takes the lock over and serves.
    const third = startProcess(dataDir, CONTAINER);
    const baseUrl = await third.ready();
    expect((await fetch(`${baseUrl}/v1/openapi.json`)).status).toBe(200);
    expect(third.output()).toContain('already seeded');
    process.kill(-third.child.pid!, 'SIGTERM');
    expect(await third.exited).toBe(0);
  }, 120_000);
});
