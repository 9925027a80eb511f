import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface TargetProcess<Ready> {
  ready: Ready;
  child: ChildProcess;
  stop(): Promise<void>;
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
  const child = spawn(process.execPath, [new URL(script, import.meta.url).pathname, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
    lines.on('line', (line) => {
      if (!line.startsWith('{"ready"')) return;
      resolve((JSON.parse(line) as { ready: Ready }).ready);
    });
  });
  return {
    ready,
    child,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
