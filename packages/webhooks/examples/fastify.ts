import { Webhooks } from '@svc-kit/webhooks';
import { webhookPlugin } from '@svc-kit/webhooks/fastify';
import Fastify from 'fastify';

// Throws at start-up if the secret is missing, instead of refusing every delivery later.
const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', async (event) => {
  // Deliveries carry ids only: fetch the message from the API when you need its content.
  console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
});

export const app = Fastify();
// The plugin reads its own route's body as raw bytes; the rest of the app keeps Fastify's JSON parser.
await app.register(webhookPlugin, { webhooks, path: '/webhooks' });
await app.listen({ port: Number(process.env.PORT ?? 3000) });
