// Starts every cell of the matrix: one process per runtime, serving one app per framework, each on a
// port of its own. Every start is bounded in time, and every process is ended by `stop`.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NEW_SECRET, SECRET } from './deliveries.mjs';
import * as runtimes from './runtimes.mjs';

const require = createRequire(import.meta.url);
const APPS = fileURLToPath(new URL('../apps/', import.meta.url));
const NEXT_BIN = fileURLToPath(import.meta.resolve('next/dist/bin/next'));
// Secrets for the apps; and no runtime phones home (update checks, telemetry): only loopback is used.
const ENV = {
  ...process.env,
  SVC_WEBHOOK_SECRET: SECRET,
  SVC_WEBHOOK_SECRET_NEW: NEW_SECRET,
  NEXT_TELEMETRY_DISABLED: '1',
  DENO_NO_UPDATE_CHECK: '1',
  DO_NOT_TRACK: '1',
};

/**
 * Spawns a process and resolves once `ready(line)` returns a value for a line it printed (on stdout, or
 * on fd 3 with `fd3: true`); rejects with its output if it exits or does not get ready in `timeoutMs`.
 */
function startProcess(command, args, { cwd = APPS, env = {}, timeoutMs = 60_000, fd3 = false, ready }) {
  const child = spawn(command, args, {
    cwd,
    env: { ...ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe', ...(fd3 ? ['pipe'] : [])],
  });
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
const EXIT_OK = () => undefined;

/** `{"ready": {framework: port}, "runtime": "…"}`, the line every app prints once it listens. */
function readyLine(line) {
  if (!line.startsWith('{"ready"')) return undefined;
  return JSON.parse(line);
}

function cell(runtime, version, ports) {
  return Object.entries(ports).map(([framework, port]) => ({
    runtime,
    framework,
    version,
    base: `http://127.0.0.1:${port}`,
  }));
}

async function startApp(runtime, command, args, options = {}) {
  const process_ = startProcess(command, args, { ready: readyLine, ...options });
  const ready = await process_.started;
  return { cells: cell(runtime, ready.runtime, ready.ready), stop: process_.stop };
}

async function bundle(entry, conditions, format, dir) {
  const outfile = join(dir, `${entry}.js`);
  await build({
    entryPoints: [join(APPS, `${entry}.mjs`)],
    bundle: true,
    format,
    platform: 'neutral',
    conditions,
    mainFields: ['browser', 'module', 'main'],
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

// workerd serves the bundled module worker; with nodejs_compat, its bindings are on process.env as on
// Cloudflare. The port is chosen by workerd and reported on its control fd.
const WORKERD_CONFIG = (script) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "${script}")],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["nodejs_compat"],
  bindings = [
    (name = "SVC_WEBHOOK_SECRET", text = "${SECRET}"),
    (name = "SVC_WEBHOOK_SECRET_NEW", text = "${NEW_SECRET}"),
  ],
);
`;

/** Every cell, by runtime: what the README's table of tested runtimes must list, no more and no less. */
export const MATRIX = {
  'Node 20': ['node:http', 'Express', 'Fastify', 'Koa', 'h3', 'Hono'],
  'Node 22': ['node:http', 'Express', 'Fastify', 'Koa', 'h3', 'Hono'],
  'Node 24': ['node:http', 'Express', 'Fastify', 'Koa', 'h3', 'Hono'],
  Bun: ['Bun.serve', 'Hono', 'Elysia'],
  Deno: ['Deno.serve'],
  workerd: ['module worker'],
  'Edge runtime': ['fetch event'],
  'Next.js': ['route handler (nodejs)', 'route handler (edge)'],
};

const STARTERS = {
  'Node 20': () => startApp('Node 20', runtimes.hostNode().path, ['node.mjs']),
  'Node 22': () => startApp('Node 22', runtimes.node(22).path, ['node.mjs']),
  'Node 24': () => startApp('Node 24', runtimes.node(24).path, ['node.mjs']),
  Bun: () => startApp('Bun', runtimes.bun().path, ['bun.mjs']),
  Deno: async (dir) =>
    startApp(
      'Deno',
      runtimes.deno().path,
      ['run', '--allow-net', '--allow-env', '--allow-read', '--no-lock', 'deno.mjs'],
      {
        env: { DENO_DIR: join(dir, 'deno') },
      },
    ),
  workerd: async (dir) => {
    const { path, version } = runtimes.workerd();
    await bundle('worker', ['workerd', 'worker', 'browser'], 'esm', dir);
    const config = join(dir, 'worker.capnp');
    await writeFile(config, WORKERD_CONFIG('worker.js'));
    const workerd = startProcess(path, ['serve', config, '--control-fd=3'], {
      cwd: dir,
      fd3: true,
      ready: (line) => {
        const event = line.startsWith('{') ? JSON.parse(line) : undefined;
        return event?.event === 'listen' ? event.port : undefined;
      },
    });
    const port = await workerd.started;
    return { cells: cell('workerd', version, { 'module worker': port }), stop: workerd.stop };
  },
  'Edge runtime': async (dir) => {
    const script = await bundle('edge', ['edge-light', 'worker', 'browser'], 'iife', dir);
    return startApp('Edge runtime', runtimes.hostNode().path, ['edge-server.mjs', script]);
  },
  'Next.js': async () => {
    const cwd = join(APPS, 'next');
    const node = runtimes.hostNode().path;
    await startProcess(node, [NEXT_BIN, 'build'], { cwd, timeoutMs: 600_000, ready: EXIT_OK }).started;
    const server = startProcess(node, [NEXT_BIN, 'start', '--port', '0', '--hostname', '127.0.0.1'], {
      cwd,
      ready: (line) => /https?:\/\/[^\s:]+:(\d+)/.exec(line)?.[1],
    });
    const port = Number(await server.started);
    const version = `next ${require('next/package.json').version}`;
    return {
      cells: [
        {
          runtime: 'Next.js',
          framework: 'route handler (nodejs)',
          version,
          base: `http://127.0.0.1:${port}`,
        },
        {
          runtime: 'Next.js',
          framework: 'route handler (edge)',
          version,
          base: `http://127.0.0.1:${port}/edge`,
        },
      ],
      stop: server.stop,
    };
  },
};

/** Starts every runtime at once; resolves to the cells, the time each start took, and a `stop` for all. */
export async function startMatrix() {
  const dir = await mkdtemp(join(tmpdir(), 'runtime-matrix-'));
  const started = await Promise.allSettled(
    Object.entries(STARTERS).map(async ([runtime, start]) => {
      const since = performance.now();
      const result = await start(dir);
      return { runtime, ...result, startMs: performance.now() - since };
    }),
  );
  const ok = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async () => {
    await Promise.all(ok.map((runtime) => runtime.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  const failures = started.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
  if (failures.length > 0) {
    await stop();
    throw new AggregateError(failures, failures.map((error) => error.message).join('\n\n'));
  }
  const cells = ok.flatMap((runtime) => runtime.cells);
  const served = Object.fromEntries(
    ok.map((runtime) => [runtime.runtime, runtime.cells.map((c) => c.framework)]),
  );
  if (JSON.stringify(served) !== JSON.stringify(MATRIX)) {
    await stop();
    throw new Error(`The apps serve ${JSON.stringify(served)}, not the MATRIX ${JSON.stringify(MATRIX)}.`);
  }
  return { runtimes: ok, cells, stop };
}
