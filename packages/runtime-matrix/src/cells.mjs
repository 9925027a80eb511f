// Starts every cell of the matrix, once prepare.mjs has run: one process per runtime, serving one app per
// framework, each on a port of its own. Every start is bounded in time, and every process is ended by
// `stop`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { NEW_SECRET, SECRET } from './deliveries.mjs';
import { NEXT_APP, NEXT_BIN } from './prepare.mjs';
import { APPS, startProcess } from './processes.mjs';
import * as runtimes from './runtimes.mjs';

const require = createRequire(import.meta.url);

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

const NODE_FRAMEWORKS = ['node:http', 'Express 5', 'Express 4', 'Fastify', 'Koa 3', 'Koa 2', 'h3', 'Hono'];
// On Node 18 (the SDK's oldest), the frameworks whose current versions still support it.
const NODE_18_FRAMEWORKS = ['node:http', 'Express 5', 'Express 4', 'Koa 3', 'Koa 2'];
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
  'Node 18': NODE_18_FRAMEWORKS,
  'Node 20': NODE_FRAMEWORKS,
  'Node 22': NODE_FRAMEWORKS,
  'Node 24': NODE_FRAMEWORKS,
  Bun: ['fetch handler', 'Hono', 'h3', 'Elysia'],
  Deno: ['fetch handler', 'Hono', 'h3'],
  workerd: WORKERD_FRAMEWORKS,
  'Edge runtime': ['fetch handler'],
  'Next.js': ['route handler (nodejs)', 'route handler (edge)'],
};

const STARTERS = {
  'Next.js': async (_dir, prepared) => {
    const build = prepared['next build'];
    if (build?.error !== undefined) throw new Error(`next build failed: ${build.error}`);
    const node = (await runtimes.hostNode()).path;
    // Built by prepare.mjs.
    const server = startProcess(node, [NEXT_BIN, 'start', '--port', '0', '--hostname', '127.0.0.1'], {
      cwd: NEXT_APP,
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
  'Node 18': async () =>
    startApp('Node 18', (await runtimes.node(18)).path, ['node.mjs', ...NODE_18_FRAMEWORKS]),
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
 * Starts every runtime at once, once `prepare()` is done (`prepared`: its outcome per part). Resolves to
 * the runtimes that started, their cells, `down` (a runtime that did not start: `{ runtime, error }`),
 * and a `stop` for all. A runtime that does not start fails its own cells only, so that the run still
 * prints its table.
 */
export async function startMatrix(prepared = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'runtime-matrix-'));
  const order = Object.keys(MATRIX);
  const started = await Promise.allSettled(
    Object.entries(STARTERS).map(async ([runtime, start]) => {
      const since = performance.now();
      try {
        const result = await start(dir, prepared);
        const served = result.cells.map((c) => c.framework);
        if (JSON.stringify(served) !== JSON.stringify(MATRIX[runtime])) {
          await result.stop();
          throw new Error(`serves ${served.join(', ')}, not the MATRIX's ${MATRIX[runtime].join(', ')}`);
        }
        return { runtime, ...result, startMs: performance.now() - since };
      } catch (error) {
        throw Object.assign(error, { runtime });
      }
    }),
  );
  const byOrder = (a, b) => order.indexOf(a.runtime) - order.indexOf(b.runtime);
  const ok = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])).sort(byOrder);
  const down = started
    .flatMap((result) =>
      result.status === 'rejected' ? [{ runtime: result.reason.runtime, error: result.reason }] : [],
    )
    .sort(byOrder);
  const stop = async () => {
    await Promise.all(ok.map((runtime) => runtime.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  return { runtimes: ok, cells: ok.flatMap((runtime) => runtime.cells), down, stop };
}
