import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { copyRuntimeFiles } from '../../runtime-files.js';

const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The real entry point (or `entry`, a script of a test's own), bundled as `npm run build` does, into a temporary folder inside the package (so
 * the bundle resolves its dependencies from the repository's node_modules). Tests then spawn real
 * service processes from it, which they can kill.
 */
export async function buildEntryPoint(
  entry = join(PACKAGE_DIR, 'src/main.ts'),
): Promise<{ main: string; remove(): Promise<void> }> {
  const cache = join(PACKAGE_DIR, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const outDir = await mkdtemp(join(cache, 'svc-build-'));
  await build({
    entry: { main: entry },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    outDir,
    silent: true,
    config: false,
    external: [/^[^./]/],
  });
  copyRuntimeFiles(outDir);
  return { main: join(outDir, 'main.js'), remove: () => rm(outDir, { recursive: true, force: true }) };
}

/** The start-up line; the trailing space means the URL has arrived whole, not cut between two chunks. */
const BANNER = /listening on (http:\/\/\S+)\s/;

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  exited: Promise<number | null>;
  /** Resolves with the base URL once the start-up banner is printed. */
  ready(timeoutMs?: number): Promise<string>;
  /** Resolves once `text` has been printed; throws with the output if the process exits or time runs out. */
  printed(text: string, timeoutMs?: number): Promise<void>;
}

/**
 * `wrapper`: a command the service runs under (e.g. `unshare --pid --fork`); the child is then the leader
 * of its own process group, so that a test can kill the wrapper and the service together.
 */
export function spawnService(
  main: string,
  env: Record<string, string>,
  wrapper: readonly string[] = [],
): ServiceProcess {
  const [command, ...args] = [...wrapper, process.execPath, main];
  const child = spawn(command!, args, {
    cwd: PACKAGE_DIR,
    env: {
      ...process.env,
      PORT: '0',
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      // Cheap password hashes where the service allows them (it refuses the setting in production).
      ...(env.NODE_ENV === 'production' ? {} : { SVC_PASSWORD_COST: 'test' }),
      // Process tests fire hundreds of test events into workspaces of their own.
      SVC_TEST_EVENT_BUDGET: 'off',
      // The tests read the first start's secrets from the output, as a person reads them in a terminal.
      SVC_FIRST_START_SECRETS: 'stdout',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: wrapper.length > 0,
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async ready(timeoutMs = 60_000) {
      await waitForOutput(
        child,
        () => output,
        (text) => BANNER.test(text),
        timeoutMs,
      );
      return BANNER.exec(output)![1]!;
    },
    async printed(text, timeoutMs = 60_000) {
      await waitForOutput(
        child,
        () => output,
        (seen) => seen.includes(text),
        timeoutMs,
      );
    },
  };
}

async function waitForOutput(
  child: ChildProcess,
  output: () => string,
  done: (output: string) => boolean,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done(output())) {
    if (Date.now() > deadline || child.exitCode !== null) {
      throw new Error(`the service never printed what was awaited; output:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
