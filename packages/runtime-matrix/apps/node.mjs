// Every Node framework of the matrix, run by each Node version: the README's quickstart for it (from
// apps/readme/, types stripped), started as the README starts it, plus a server of the matrix's own routes
// in the same framework. Prints their URLs as one JSON line: `{ ready: { framework: [quickstart, routes] } }`.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { serve as serveHono } from '@hono/node-server';
import { webhookMiddleware as expressWebhooks } from '@svc-kit/webhooks/express';
import { webhookPlugin } from '@svc-kit/webhooks/fastify';
import { webhookMiddleware as koaWebhooks } from '@svc-kit/webhooks/koa';
import { createNodeHandler } from '@svc-kit/webhooks/node-http';
import express from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { serve as serveH3, toNodeHandler } from 'h3';
import Koa from 'koa';
import Koa2 from 'koa2';
import { h3Routes } from './h3.mjs';
import { honoRoutes } from './hono.mjs';
import { firstSnippet } from './readme/first-snippet.js';
import { rotationWebhooks } from './readme/rotation.js';
import { createRoutes } from './routes.mjs';

const routes = createRoutes({ firstSnippet, rotationWebhooks });
const readme = (name) => import(`./readme/examples/${name}.js`);

async function readText(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The base URL of a listening server, on the loopback address of the family it listens on. */
function urlOf(server) {
  const { address, family, port } = server.address();
  if (family === 'IPv6' && address !== '::') return `http://[${address}]:${port}`;
  return `http://127.0.0.1:${port}`;
}

async function listen(server) {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return urlOf(server);
}

/** The URL of a server the README's code started (on PORT=0). */
async function started(server) {
  if (!server.listening) await once(server, 'listening');
  return urlOf(server);
}

/** The README's Express quickstart (`readmeName`), and the matrix's routes in the same Express. */
async function expressApp(express, readmeName) {
  const app = express();
  app.post('/rotation', expressWebhooks(routes.rotation));
  app.post('/parsed', express.json(), expressWebhooks(routes.parsed));
  app.post('/verify', express.raw({ type: '*/*' }), (req, res) => {
    const { status, body } = routes.verify(req.body, req.headers);
    res.status(status).type('application/json').send(body);
  });
  return [await started((await readme(readmeName)).server), await listen(createServer(app))];
}

/** The README's Koa quickstart (`readmeName`), and the matrix's routes in the same Koa. */
async function koaApp(Koa, readmeName) {
  const app = new Koa();
  app.silent = true;
  app.use(koaWebhooks(routes.rotation, { path: '/rotation' }));
  const parsed = koaWebhooks(routes.parsed, { path: '/parsed' });
  app.use(async (ctx, next) => {
    const text = await readText(ctx.req);
    // What koa-bodyparser does: the parsed value on ctx.request.body.
    if (ctx.path === '/parsed') ctx.request.body = JSON.parse(text);
    if (ctx.path === '/verify') {
      const { status, body } = routes.verify(text, ctx.req.headers);
      ctx.status = status;
      ctx.type = 'application/json';
      ctx.body = body;
      return;
    }
    await next();
  });
  app.use(parsed);
  return [await started((await readme(readmeName)).server), await listen(createServer(app.callback()))];
}

const apps = {
  'node:http': async () => {
    const handleRotation = createNodeHandler(routes.rotation);
    const handleParsed = createNodeHandler(routes.parsed);
    const own = createServer(async (req, res) => {
      if (req.url === '/rotation') return handleRotation(req, res);
      const text = await readText(req);
      if (req.url === '/parsed') return handleParsed(req, res);
      const { status, body } = routes.verify(text, req.headers);
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    return [await started((await readme('node-http')).server), await listen(own)];
  },
  'Express 5': () => expressApp(express, 'express'),
  'Express 4': () => expressApp(express4, 'express-4'),
  Fastify: async () => {
    const app = Fastify();
    await app.register(webhookPlugin, { webhooks: routes.rotation, path: '/rotation' });
    // Fastify's own JSON parser ran: the route hands the parsed body over.
    app.post('/parsed', async (request, reply) => {
      const answer = await routes.parsed.handle({ body: request.body, headers: request.headers });
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    });
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      scope.post('/verify', async (request, reply) => {
        const { status, body } = routes.verify(request.body, request.headers);
        return reply.code(status).type('application/json').send(body);
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    // The README's app listens on `localhost`, which may be either address family.
    return [urlOf((await readme('fastify')).app.server), urlOf(app.server)];
  },
  'Koa 3': () => koaApp(Koa, 'koa'),
  'Koa 2': () => koaApp(Koa2, 'koa-2'),
  h3: async () => {
    // "Serve it with h3's serve(app)", as the README says.
    const server = serveH3((await readme('h3')).app, { port: 0, hostname: '127.0.0.1', silent: true });
    await server.ready();
    return [server.url.replace(/\/$/, ''), await listen(createServer(toNodeHandler(h3Routes(routes))))];
  },
  Hono: async () => {
    // "On Node, use @hono/node-server", as the README says.
    const server = serveHono({ fetch: (await readme('hono')).default.fetch, port: 0, hostname: '127.0.0.1' });
    const own = serveHono({ fetch: honoRoutes(routes).fetch, port: 0, hostname: '127.0.0.1' });
    return [await started(server), await started(own)];
  },
};

// The frameworks named on the command line (Node 18 runs only those that still support it), else all.
const only = process.argv.slice(2);
const ports = {};
for (const [name, start] of Object.entries(apps)) {
  if (only.length === 0 || only.includes(name)) ports[name] = await start();
}
console.log(JSON.stringify({ ready: ports, runtime: `node ${process.version}` }));
