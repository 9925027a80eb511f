import { Webhooks } from '@svc-kit/webhooks';
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { Hono } from 'hono';

const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', (event) => {
  console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
});

const receive = createFetchHandler(webhooks);

const app = new Hono();
// Hand over the raw Request (c.req.raw) before anything reads its body.
app.post('/webhooks', (c) => receive(c.req.raw));

// Bun, Deno and Cloudflare Workers serve the default export; on Node use @hono/node-server.
export default app;
