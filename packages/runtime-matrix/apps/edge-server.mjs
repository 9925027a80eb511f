// Runs the bundled edge app in edge-runtime's VM (Web APIs only, no Node built-ins) behind its HTTP server.
import { readFile } from 'node:fs/promises';
import { EdgeRuntime, runServer } from 'edge-runtime';

const initialCode = await readFile(process.argv[2], 'utf8');
const env = {
  SVC_WEBHOOK_SECRET: process.env.SVC_WEBHOOK_SECRET,
  SVC_WEBHOOK_SECRET_NEW: process.env.SVC_WEBHOOK_SECRET_NEW,
  SVC_WEBHOOK_SECRET_OLD: process.env.SVC_WEBHOOK_SECRET_OLD,
};
const runtime = new EdgeRuntime({
  initialCode,
  // Vercel's edge exposes the project's environment as process.env, and nothing else of `process`.
  extend: (context) => Object.assign(context, { process: { env } }),
});
const server = await runServer({ runtime, port: 0, host: '127.0.0.1' });
const { version } = JSON.parse(
  await readFile(new URL(import.meta.resolve('edge-runtime/package.json')), 'utf8'),
);
console.log(
  JSON.stringify({
    ready: { 'fetch handler': Number(new URL(server.url).port) },
    runtime: `edge-runtime ${version}`,
  }),
);
