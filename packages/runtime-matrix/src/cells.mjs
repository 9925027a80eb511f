// Starts every cell of the matrix: one process per runtime, serving one app per framework, each on a
// port of its own. Every start is bounded in time, and every process is ended by `stop`.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NEW_SECRET, SECRET } from './deliveries.mjs';
import { README_DIR, writeReadmeModules } from './readme-text.mjs';
import * as runtimes from './runtimes.mjs';

const require = createRequire(import.meta.url);
const APPS = fileURLToPath(new URL('../apps/', import.meta.url));
const NEXT_BIN = fileURLToPath(import.meta.resolve('next/dist/bin/next'));
// Secrets for the README's code (its quickstarts, and its rotation snippet with the new secret beside the
// current one), every server it starts on a port the system picks; and no runtime phones home (update
// checks, telemetry): only loopback is used.
const ENV = {
  ...process.env,
  SVC_WEBHOOK_SECRET: SECRET,
  SVC_WEBHOOK_SECRET_NEW: NEW_SECRET,
  SVC_WEBHOOK_SECRET_OLD: SECRET,
  PORT: '0',
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

/**
 * `{"ready": {framework: where}, "runtime": "…"}`, the line every app prints once it listens; `where` is a
 * port serving every route, or `[quickstart URL, routes URL]` when the README's quickstart starts a server
 * of its own.
 */
function readyLine(line) {
  if (!line.startsWith('{"ready"')) return undefined;
  return JSON.parse(line);
}

function cell(runtime, version, ready) {
  return Object.entries(ready).map(([framework, where]) => {
    const [quickstart, base] = Array.isArray(where)
      ? where
      : [`http://127.0.0.1:${where}`, `http://127.0.0.1:${where}`];
    return { runtime, framework, version, quickstart, base };
  });
}

async function startApp(runtime, command, args, options = {}) {
  const process_ = startProcess(command, args, { ready: readyLine, ...options });
  const ready = await process_.started;
  return { cells: cell(runtime, ready.runtime, ready.ready), stop: process_.stop };
}

/** esbuild as the platform's own tooling does it (wrangler, Next.js): types stripped, one file. */
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

const WORKERD_FRAMEWORKS = ['fetch handler', 'Hono', 'h3'];

// workerd serves the bundled module worker, once per framework (a service each, told which by its
// FRAMEWORK binding, on a socket each); with nodejs_compat, the text bindings are on process.env as on
// Cloudflare. The ports are chosen by workerd and reported on its control fd.
const WORKERD_CONFIG = (script) => {
  const services = WORKERD_FRAMEWORKS.map(
    (framework, index) => `(name = "s${index}", worker = (
    modules = [(name = "worker.js", esModule = embed "${script}")],
    compatibilityDate = "2025-09-01",
    compatibilityFlags = ["nodejs_compat"],
    bindings = [
      (name = "FRAMEWORK", text = "${framework}"),
      (name = "SVC_WEBHOOK_SECRET", text = "${SECRET}"),
      (name = "SVC_WEBHOOK_SECRET_NEW", text = "${NEW_SECRET}"),
      (name = "SVC_WEBHOOK_SECRET_OLD", text = "${SECRET}"),
    ],
  ))`,
  );
  const sockets = WORKERD_FRAMEWORKS.map(
    (_, index) => `(name = "s${index}", address = "127.0.0.1:0", http = (), service = "s${index}")`,
  );
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [${services.join(', ')}],
  sockets = [${sockets.join(', ')}],
);
`;
};

/** Every cell, by runtime: what the README's table of tested runtimes must list, no more and no less. */
export const MATRIX = {
  'Node 20': ['node:http', 'Express', 'Fastify', 'Koa', 'h3', 'Hono'],
  'Node 22': ['node:http', 'Express', 'Fastify', 'Koa', 'h3', 'Hono'],
  'Node 24': ['node:http', 'Express', 'Fastify', 'Koa', 'h3', 'Hono'],
  Bun: ['fetch handler', 'Hono', 'h3', 'Elysia'],
  Deno: ['fetch handler', 'Hono', 'h3'],
  workerd: WORKERD_FRAMEWORKS,
  'Edge runtime': ['fetch handler'],
  'Next.js': ['route handler (nodejs)', 'route handler (edge)'],
};

/** The README's Next.js quickstart as app/webhooks/route.js, and with the edge runtime chosen below edge/. */
async function writeNextQuickstart() {
  const route = await readFile(join(README_DIR, 'examples', 'next-app-router.js'), 'utf8');
  const app = join(APPS, 'next', 'app');
  await mkdir(join(app, 'webhooks'), { recursive: true });
  await mkdir(join(app, 'edge', 'webhooks'), { recursive: true });
  await writeFile(join(app, 'webhooks', 'route.js'), route);
  // What a user adds to run the same route on the edge.
  await writeFile(join(app, 'edge', 'webhooks', 'route.js'), `${route}\nexport const runtime = 'edge';\n`);
}

// In the order they are started: the longest first.
const STARTERS = {
  'Next.js': async () => {
    const cwd = join(APPS, 'next');
    const node = (await runtimes.hostNode()).path;
    await writeNextQuickstart();
    await startProcess(node, [NEXT_BIN, 'build'], { cwd, timeoutMs: 600_000, ready: EXIT_OK }).started;
    const server = startProcess(node, [NEXT_BIN, 'start', '--port', '0', '--hostname', '127.0.0.1'], {
      cwd,
      ready: (line) => /https?:\/\/[^\s:]+:(\d+)/.exec(line)?.[1],
    });
    const base = `http://127.0.0.1:${Number(await server.started)}`;
    const version = `next ${require('next/package.json').version}`;
    return {
      cells: cell('Next.js', version, {
        'route handler (nodejs)': [base, base],
        'route handler (edge)': [`${base}/edge`, `${base}/edge`],
      }),
      stop: server.stop,
    };
  },
  'Node 20': async () => startApp('Node 20', (await runtimes.hostNode()).path, ['node.mjs']),
  'Node 22': async () => startApp('Node 22', (await runtimes.node(22)).path, ['node.mjs']),
  'Node 24': async () => startApp('Node 24', (await runtimes.node(24)).path, ['node.mjs']),
  Bun: async () => startApp('Bun', (await runtimes.bun()).path, ['bun.mjs']),
  Deno: async (dir) =>
    startApp(
      'Deno',
      (await runtimes.deno()).path,
      ['run', '--allow-net', '--allow-env', '--allow-read', '--no-lock', 'deno.mjs'],
      { env: { DENO_DIR: join(dir, 'deno') } },
    ),
  workerd: async (dir) => {
    const { path, version } = await runtimes.workerd();
    await bundle('worker', ['workerd', 'worker', 'browser'], 'esm', dir);
    const config = join(dir, 'worker.capnp');
    await writeFile(config, WORKERD_CONFIG('worker.js'));
    const ports = {};
    const workerd = startProcess(path, ['serve', config, '--control-fd=3'], {
      cwd: dir,
      fd3: true,
      ready: (line) => {
        const event = line.startsWith('{') ? JSON.parse(line) : undefined;
        if (event?.event === 'listen') ports[WORKERD_FRAMEWORKS[Number(event.socket.slice(1))]] = event.port;
        return Object.keys(ports).length === WORKERD_FRAMEWORKS.length ? true : undefined;
      },
    });
    await workerd.started;
    const ready = Object.fromEntries(WORKERD_FRAMEWORKS.map((framework) => [framework, ports[framework]]));
    return { cells: cell('workerd', version, ready), stop: workerd.stop };
  },
  'Edge runtime': async (dir) => {
    const script = await bundle('edge', ['edge-light', 'worker', 'browser'], 'iife', dir);
    return startApp('Edge runtime', (await runtimes.hostNode()).path, ['edge-server.mjs', script]);
  },
};

/**
 * Writes the README's code to apps/readme/, then starts every runtime at once; resolves to the cells,
 * the time each start took, and a `stop` for all.
 */
export async function startMatrix() {
  writeReadmeModules();
  const dir = await mkdtemp(join(tmpdir(), 'runtime-matrix-'));
  const started = await Promise.allSettled(
    Object.entries(STARTERS).map(async ([runtime, start]) => {
      const since = performance.now();
      const result = await start(dir);
      return { runtime, ...result, startMs: performance.now() - since };
    }),
  );
  const ok = started
    .flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
    .sort((a, b) => Object.keys(MATRIX).indexOf(a.runtime) - Object.keys(MATRIX).indexOf(b.runtime));
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
