// Child processes of the matrix: the apps, the runtimes and the builds, each bounded in time and ended by
// its `stop`, all with the matrix's environment.
import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { NEW_SECRET, SECRET } from './deliveries.mjs';

export const APPS = fileURLToPath(new URL('../apps/', import.meta.url));
// Secrets for the README's code (its quickstarts, and its rotation snippet with the new secret beside the
// current one), every server it starts on a port the system picks; and no runtime phones home (update
// checks, telemetry): only loopback is used.
export const ENV = {
  ...process.env,
  SVC_WEBHOOK_SECRET: SECRET,
  SVC_WEBHOOK_SECRET_NEW: NEW_SECRET,
  SVC_WEBHOOK_SECRET_OLD: SECRET,
  PORT: '0',
  NEXT_TELEMETRY_DISABLED: '1',
  DENO_NO_UPDATE_CHECK: '1',
  DO_NOT_TRACK: '1',
};

/** Renices a child process 10 below this one; a process already gone is left alone. */
export function lowerPriority(pid) {
  try {
    if (pid !== undefined) setPriority(pid, Math.min(19, getPriority() + 10));
  } catch {
    // It exited already.
  }
}

/**
 * Spawns a process and resolves once `ready(line)` returns a value for a line it printed (on stdout, or
 * on fd 3 with `fd3: true`); rejects with its output if it exits or does not get ready in `timeoutMs`.
 * With `background: true`, it runs at a lower priority than this process.
 */
export function startProcess(
  command,
  args,
  { cwd = APPS, env = {}, timeoutMs = 60_000, fd3 = false, background = false, ready },
) {
  const child = spawn(command, args, {
    cwd,
    env: { ...ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe', ...(fd3 ? ['pipe'] : [])],
  });
  // Work started ahead of its test (see prepare.mjs) yields the processors to the tests running meanwhile.
  if (background) lowerPriority(child.pid);
  let output = '';
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs);
    const fail = (why) => {
      clearTimeout(timer);
      void stop();
      reject(new Error(`${command} ${args.join(' ')}: ${why}\n${output.slice(-4000)}`));
    };
    let pending = '';
    const onData = (chunk) => {
      output += chunk;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const value = ready(line);
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        }
      }
    };
    (fd3 ? child.stdio[3] : child.stdout).setEncoding('utf8').on('data', onData);
    if (fd3) child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.once('exit', (code, signal) => {
      if (code === 0 && ready === EXIT_OK) {
        clearTimeout(timer);
        resolve();
      } else fail(`exited (${signal ?? code})`);
    });
    child.once('error', (error) => fail(error.message));
  });
  return { started, stop, output: () => output };
}

/** As `ready`: the process is done when it exits with status 0 (a build). */
export const EXIT_OK = () => undefined;
