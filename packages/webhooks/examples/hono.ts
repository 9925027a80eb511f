import { Webhooks } from '@svc-kit/webhooks';
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { Hono } from 'hono';

const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', async (event) => {
  // Deliveries carry ids only: fetch the message from the API when you need its content.
  console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
});

const handleWebhook = createFetchHandler(webhooks);

const app = new Hono();
// c.req.raw is the untouched Request: hand it over before anything reads the body.
app.post('/webhooks', (c) => handleWebhook(c.req.raw));

// Bun, Deno and Cloudflare Workers serve the default export; on Node, use @hono/node-server.
export default app;
