import {
  closeSync,
  openSync,
  readFileSync,
  readlinkSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensurePrivateDir } from './private-dir.js';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
  ) {
    super(`data dir ${dataDir} is in use by process ${ownerPid}; PGlite allows one process per data dir`);
  }
}

export interface DataDirLock {
  release(): void;
}

/**
 * Who holds the lock, in enough detail that a reused PID is not mistaken for the holder: a PID is unique only
 * within one PID namespace, during one boot, while its process lives (a container's service is PID 1 on every
 * start). `null` where the platform does not say (no /proc outside Linux).
 */
interface Holder {
  pid: number;
  /** Start time of the process, in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  start: string | null;
  /** /proc/sys/kernel/random/boot_id. */
  boot: string | null;
  /** The PID namespace, as /proc/self/ns/pid names it (`pid:[4026531836]`). */
  pidNamespace: string | null;
}

/** The holder touches the lock file this often; a holder in another PID namespace is judged by it. */
const HEARTBEAT_MS = 1_000;
/** A heartbeat older than this is a holder that is gone (it would have touched the file 5 times). */
const STALE_MS = 5_000;

function readOr(path: string, read = (file: string) => readFileSync(file, 'utf8')): string | null {
  try {
    return read(path).trim();
  } catch {
    return null;
  }
}

function startTimeOf(pid: number): string | null {
  const stat = readOr(`/proc/${pid}/stat`);
  // The command name (field 2) is in parentheses and may hold spaces: count fields after the last `)`.
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields?.[19] ?? null;
}

function currentHolder(): Holder {
  return {
    pid: process.pid,
    start: startTimeOf(process.pid),
    boot: readOr('/proc/sys/kernel/random/boot_id'),
    pidNamespace: readOr('/proc/self/ns/pid', readlinkSync),
  };
}

function parseHolder(text: string): Holder | undefined {
  // A bare PID: the lock file of an older version.
  if (/^\d+$/.test(text.trim())) return { pid: Number(text), start: null, boot: null, pidNamespace: null };
  try {
    const holder = JSON.parse(text) as Holder;
    return Number.isInteger(holder.pid) && holder.pid > 0 ? holder : undefined;
  } catch {
    return undefined;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the recorded holder still runs, as far as this process can see it. */
function judge(holder: Holder, me: Holder): 'alive' | 'gone' | 'ask-heartbeat' {
  if (holder.boot !== null && me.boot !== null && holder.boot !== me.boot) return 'gone';
  // Another PID namespace (another container on the same volume, or this container's previous life): its
  // PIDs mean nothing here, only the heartbeat tells.
  if (holder.pidNamespace !== null && me.pidNamespace !== null && holder.pidNamespace !== me.pidNamespace) {
    return 'ask-heartbeat';
  }
  // Our own PID: the holder is this very process only if it also started when we did.
  if (holder.pid === me.pid) return holder.start === me.start && holder.boot === me.boot ? 'alive' : 'gone';
  if (!pidExists(holder.pid)) return 'gone';
  // The PID is taken, but by the holder only if that process started when the holder did.
  if (holder.start !== null) {
    const start = startTimeOf(holder.pid);
    if (start !== null) return start === holder.start ? 'alive' : 'gone';
  }
  return 'alive';
}

const mtimeOf = (path: string) => statSync(path, { throwIfNoEntry: false })?.mtimeMs;

/**
 * A holder in another PID namespace is alive while it keeps touching the file: `true` at the first new touch,
 * `false` once the last one is older than STALE_MS.
 */
async function heartbeatAlive(path: string): Promise<boolean> {
  const first = mtimeOf(path);
  if (first === undefined) return false;
  for (;;) {
    if (Date.now() - first > STALE_MS) return false;
    await sleep(HEARTBEAT_MS / 4);
    const now = mtimeOf(path);
    if (now === undefined) return false;
    if (now !== first) return true;
  }
}

/**
 * PGlite opens its files without any locking of its own, and two processes on one data dir would corrupt it:
 * a lock file created with O_EXCL keeps a second one out. It records the holder's PID, process start time,
 * boot id and PID namespace, and the holder touches it every second, so that a file left by a process that is
 * gone is taken over even when a new process got the same PID (a container's PID 1). Known limit: two
 * processes starting in the same instant over a stale file could both take it over; accepted for PGlite, a
 * single-user development backend.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  ensurePrivateDir(dataDir);
  const path = join(dataDir, 'service.lock');
  const me = currentHolder();
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      return holdLock(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = parseHolder(readOr(path) ?? '');
      if (holder) {
        const verdict = judge(holder, me);
        if (verdict === 'alive' || (verdict === 'ask-heartbeat' && (await heartbeatAlive(path)))) {
          throw new DataDirLockedError(dataDir, holder.pid);
        }
      }
      try {
        unlinkSync(path);
      } catch {
        // Removed by its holder meanwhile: try again.
      }
    }
  }
  throw new DataDirLockedError(dataDir, 0);
}

function holdLock(path: string): DataDirLock {
  const heartbeat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // The file is gone (released, or removed by hand): nothing to touch.
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      try {
        unlinkSync(path);
      } catch {
        // Already gone: nothing left to release.
      }
    },
  };
}
