import { fileURLToPath } from 'node:url';
import { Webhooks } from '@svc-kit/webhooks';
import { webhookMiddleware } from '@svc-kit/webhooks/express';
import express from 'express';

export function createApp(secret: string) {
  // Throws at start-up if the secret is empty: a missing environment variable shows at once.
  const webhooks = new Webhooks({ secret });

  webhooks.on('message.received', (event) => {
    // Deliveries carry ids only; fetch the message from the API when you need its content.
    console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
  });
  webhooks.onError((error, delivery) => {
    console.warn(`refused delivery ${delivery.deliveryId ?? '(no id)'}: ${error.message}`);
  });

  const app = express();
  // The middleware reads the raw body itself: mount it before any JSON parser.
  app.post('/webhooks', webhookMiddleware(webhooks));
  app.use(express.json());
  return app;
}

// Run directly, the module starts the server; imported (as the tests do), it does not.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  createApp(process.env.SVC_WEBHOOK_SECRET ?? '').listen(3000);
}
