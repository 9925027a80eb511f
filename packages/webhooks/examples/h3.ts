import { Webhooks } from '@svc-kit/webhooks';
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { H3 } from 'h3';

const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', async (event) => {
  // Deliveries carry ids only: fetch the message from the API when you need its content.
  console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
});

const handleWebhook = createFetchHandler(webhooks);

export const app: H3 = new H3();
// event.req is the untouched Request: do not call readBody() before it.
app.post('/webhooks', (event) => handleWebhook(event.req));

// Serve it with h3's serve(app), or app.fetch on Bun, Deno and Workers.
