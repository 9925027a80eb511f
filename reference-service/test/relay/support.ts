import { type ChildProcess, spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { Relay } from '../../src/relay/relay.js';
import { RELAY_TIMINGS } from '../../src/relay/types.js';
import type { OpenedStore } from '../../src/store/open.js';
import type { SecretBox } from '../../src/store/secret-box.js';
import { type DeliveringService, startDeliveringService } from '../delivery/support.js';

/** The built CLI, run as integrators run it (`npm test` builds the packages before the tests). */
export const CLI = fileURLToPath(new URL('../../../packages/webhooks/dist/cli/main.js', import.meta.url));

const quiet = () =>
  process.env.RELAY_DEBUG
    ? pino({ level: 'debug' })
    : pino({ level: 'warn' }, new Writable({ write: (_c, _e, done) => done() }));

/** A delivering service (see ../delivery/support.ts) that also serves the relay behind `listen`. */
export async function startRelayService(
  store: OpenedStore,
  options: {
    soleInstance: boolean;
    secretBox?: SecretBox;
    now?: () => number;
    /** The relay's periodic check of each stream (the service's default: 5 s). */
    streamCheckMs?: number;
  },
): Promise<DeliveringService & { relay: Relay }> {
  const relay = new Relay(store.db, quiet(), {
    ...RELAY_TIMINGS,
    soleInstance: options.soleInstance,
    streamCheckMs: options.streamCheckMs ?? RELAY_TIMINGS.streamCheckMs,
    now: options.now ?? (() => Date.now()),
  });
  await relay.start();
  const service = await startDeliveringService(store, {
    relay,
    ...(options.secretBox === undefined ? {} : { secretBox: options.secretBox }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  return { ...service, relay };
}

export { freePort } from '../support/free-port.js';

/** The `svc-webhooks` CLI as a child process, with its output kept for assertions. */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** Resolves once `pattern` appears on stdout or stderr; throws with the output otherwise. */
  printed(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
}

export function runCli(args: string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async printed(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const all = stdout + stderr;
        const match =
          typeof pattern === 'string' ? (all.includes(pattern) ? pattern : null) : pattern.exec(all)?.[0];
        if (match) return match;
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`the CLI never printed ${pattern}; stdout:\n${stdout}\nstderr:\n${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}

/** Runs a short CLI command to its end. */
export async function cliOnce(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = runCli(args, env);
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** The listener's id and signing secret, from `listen`'s start-up lines. */
export async function listenerOf(listen: CliProcess): Promise<{ id: string; secret: string }> {
  await listen.printed(/Signing secret: whsec_\S+\n/);
  const id = /\(listener (whk_[0-9a-f]+)\)/.exec(listen.stdout())![1]!;
  const secret = /Signing secret: (whsec_\S+)/.exec(listen.stdout())![1]!;
  return { id, secret };
}
