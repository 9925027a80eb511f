// One server per Node framework, each with the four routes, on ports the system picks; prints them as one
// JSON line. Run by every Node version of the matrix (and by nothing else: it uses node:http).
import { once } from 'node:events';
import { createServer } from 'node:http';
import { serve as serveHono } from '@hono/node-server';
import { webhookMiddleware as expressWebhooks } from '@svc-kit/webhooks/express';
import { webhookPlugin } from '@svc-kit/webhooks/fastify';
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { webhookMiddleware as koaWebhooks } from '@svc-kit/webhooks/koa';
import { createNodeHandler } from '@svc-kit/webhooks/node-http';
import express from 'express';
import Fastify from 'fastify';
import { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';
import Koa from 'koa';
import { honoApp } from './hono.mjs';
import { jsonResponse, quickstartWebhooks, rotationWebhooks, verifyRoute } from './readme.mjs';

async function readText(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server) {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server.address().port;
}

const apps = {
  'node:http': () => {
    const handleWebhook = createNodeHandler(quickstartWebhooks());
    const handleRotation = createNodeHandler(rotationWebhooks());
    return listen(
      createServer(async (req, res) => {
        if (req.url === '/webhooks') return handleWebhook(req, res);
        if (req.url === '/rotation') return handleRotation(req, res);
        const text = await readText(req);
        if (req.url === '/parsed') return handleWebhook(req, res);
        const { status, body } = verifyRoute(text, req.headers);
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      }),
    );
  },
  Express: () => {
    const app = express();
    app.post('/webhooks', expressWebhooks(quickstartWebhooks()));
    app.post('/rotation', expressWebhooks(rotationWebhooks()));
    app.post('/parsed', express.json(), expressWebhooks(quickstartWebhooks()));
    app.post('/verify', express.raw({ type: '*/*' }), (req, res) => {
      const { status, body } = verifyRoute(req.body, req.headers);
      res.status(status).type('application/json').send(body);
    });
    return listen(createServer(app));
  },
  Fastify: async () => {
    const app = Fastify();
    await app.register(webhookPlugin, { webhooks: quickstartWebhooks(), path: '/webhooks' });
    await app.register(webhookPlugin, { webhooks: rotationWebhooks(), path: '/rotation' });
    const parsed = quickstartWebhooks();
    // Fastify's own JSON parser ran: the route hands the parsed body over.
    app.post('/parsed', async (request, reply) => {
      const answer = await parsed.handle({ body: request.body, headers: request.headers });
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    });
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      scope.post('/verify', async (request, reply) => {
        const { status, body } = verifyRoute(request.body, request.headers);
        return reply.code(status).type('application/json').send(body);
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return app.server.address().port;
  },
  Koa: () => {
    const app = new Koa();
    app.silent = true;
    app.use(koaWebhooks(quickstartWebhooks(), { path: '/webhooks' }));
    app.use(koaWebhooks(rotationWebhooks(), { path: '/rotation' }));
    const parsed = koaWebhooks(quickstartWebhooks(), { path: '/parsed' });
    app.use(async (ctx, next) => {
      const text = await readText(ctx.req);
      // What koa-bodyparser does: the parsed value on ctx.request.body.
      if (ctx.path === '/parsed') ctx.request.body = JSON.parse(text);
      if (ctx.path === '/verify') {
        const { status, body } = verifyRoute(text, ctx.req.headers);
        ctx.status = status;
        ctx.type = 'application/json';
        ctx.body = body;
        return;
      }
      await next();
    });
    app.use(parsed);
    return listen(createServer(app.callback()));
  },
  h3: () => {
    const handleWebhook = createFetchHandler(quickstartWebhooks());
    const handleRotation = createFetchHandler(rotationWebhooks());
    const app = new H3();
    app.post('/webhooks', (event) => handleWebhook(event.req));
    app.post('/rotation', (event) => handleRotation(event.req));
    app.post('/parsed', async (event) => {
      await event.req.json();
      return handleWebhook(event.req);
    });
    app.post('/verify', async (event) =>
      jsonResponse(verifyRoute(await event.req.text(), event.req.headers)),
    );
    return listen(createServer(toNodeHandler(app)));
  },
  Hono: async () => {
    const server = serveHono({ fetch: honoApp().fetch, port: 0, hostname: '127.0.0.1' });
    await once(server, 'listening');
    return server.address().port;
  },
};

const ports = {};
for (const [name, start] of Object.entries(apps)) ports[name] = await start();
console.log(JSON.stringify({ ready: ports, runtime: `node ${process.version}` }));
