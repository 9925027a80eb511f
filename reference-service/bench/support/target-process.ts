import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface TargetProcess<Ready> {
  ready: Ready;
  /** The value of the next `{ "<key>": … }` line the process prints. */
  next<T>(key: string): Promise<T>;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The environment `npm start` gives glibc's allocator unless set (README, Configuration): two arenas, and
 * trim and mmap thresholds fixed at glibc's starting 128 KiB. glibc otherwise raises both as large blocks
 * are freed and keeps the freed memory resident: fixing them took 13 to 15 MB off the service's RSS on
 * PGlite (bench/RESULTS.md, eighteenth sitting).
 */
export const SERVICE_MALLOC_ENV = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_TRIM_THRESHOLD_: '131072',
  MALLOC_MMAP_THRESHOLD_: '131072',
} as const;

/**
 * The Node flags `npm start` gives the service (README, Configuration). On the embedded database, V8's
 * garbage collector works on the thread that needs it, without helper threads: on two cores the helpers
 * competed with the database's thread and each collection waited for them (in a probe of `listContacts`,
 * slice p99 7 to 12 ms without the flag, 6 to 10 ms with it). On PostgreSQL, where the service has no such
 * thread, the helpers shorten its pauses instead (`listContacts` p99 8 to 10 ms with them, 10 to 13 ms
 * without; bench/RESULTS.md, eighteenth sitting).
 */
function serviceNodeFlags(env: Record<string, string | undefined>): string[] {
  return [env.DATABASE_URL ? '--no-single-threaded-gc' : '--single-threaded-gc'];
}

/**
 * The flags and environment a bench target is started with: those `npm start` gives the service on the
 * same backend, so that the bench measures the service as it is run (test/start-flags.test.ts).
 */
export function targetCommand(env: Record<string, string | undefined>): {
  flags: string[];
  env: Record<string, string | undefined>;
} {
  const merged = { ...process.env, ...env };
  return { flags: serviceNodeFlags(merged), env: { ...SERVICE_MALLOC_ENV, ...merged } };
}

/**
 * Starts a bench script (bundled next to this one) in a process of its own and waits for its
 * `{ "ready": … }` line on stdout; every other line (the service's logs) is read and dropped, as a log
 * shipper would read it.
 */
export async function spawnTarget<Ready>(
  script: string,
  env: Record<string, string | undefined>,
  args: readonly string[] = [],
): Promise<TargetProcess<Ready>> {
  // BENCH_TARGET_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the target, not the load.
  const nodeArgs = (process.env.BENCH_TARGET_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const command = targetCommand(env);
  const child = spawn(
    process.execPath,
    [...command.flags, ...nodeArgs, new URL(script, import.meta.url).pathname, ...args],
    { env: command.env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const waiting = new Map<string, (value: unknown) => void>();
  const arrived = new Map<string, unknown>();
  lines.on('line', (line) => {
    const key = /^\{"([a-z]+)"/.exec(line)?.[1];
    // The service's log lines (pino's begin with `"level"`) are dropped unparsed: this process shares the
    // cores with the target, and parsing thousands of access lines a second was load the anchors never had.
    if (key === undefined || key === 'level') return;
    let value: unknown;
    try {
      value = (JSON.parse(line) as Record<string, unknown>)[key];
    } catch {
      return;
    }
    const waiter = waiting.get(key);
    waiting.delete(key);
    if (waiter) waiter(value);
    else arrived.set(key, value);
  });
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      if (arrived.has(key)) {
        resolve(arrived.get(key) as T);
        arrived.delete(key);
        return;
      }
      waiting.set(key, resolve as (value: unknown) => void);
      child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before printing ${key}`)));
    });
  const ready = await next<Ready>('ready');
  return {
    ready,
    next,
    child,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
