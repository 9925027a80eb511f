import { Webhooks } from '@svc-kit/webhooks';
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { Elysia } from 'elysia';

const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', async (event) => {
  // Deliveries carry ids only: fetch the message from the API when you need its content.
  console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
});

const handleWebhook = createFetchHandler(webhooks);

// Take only `request` in the handler: a handler that reads `body` makes Elysia parse it first.
export const app = new Elysia().post('/webhooks', ({ request }) => handleWebhook(request));

// On Bun: app.listen(3000).
