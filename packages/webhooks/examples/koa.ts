import { Webhooks } from '@svc-kit/webhooks';
import { webhookMiddleware } from '@svc-kit/webhooks/koa';
import Koa from 'koa';

// Throws at start-up if the secret is missing, instead of refusing every delivery later.
const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', async (event) => {
  // Deliveries carry ids only: fetch the message from the API when you need its content.
  console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
});

const app = new Koa();
// Use it before any body parser: it reads the raw bytes the signature covers.
app.use(webhookMiddleware(webhooks, { path: '/webhooks' }));

export const server = app.listen(Number(process.env.PORT ?? 3000));
