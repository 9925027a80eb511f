import { Webhooks } from '@svc-kit/webhooks';
import { webhookMiddleware } from '@svc-kit/webhooks/express';
import express from 'express';

// Throws at start-up if the secret is missing or empty, so a forgotten variable shows at once.
const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', (event) => {
  // Deliveries carry ids only; fetch the message from the API when you need its content.
  console.log(`message.received: thread ${event.data.thread_id} for ${event.identity}`);
});
webhooks.onError((error, delivery) => {
  console.warn(`refused delivery ${delivery.deliveryId ?? '(no id)'}: ${error.message}`);
});

const app = express();
// The middleware reads the raw body itself: mount it before any JSON parser.
app.post('/webhooks', webhookMiddleware(webhooks));
app.use(express.json());

const port = Number(process.env.PORT ?? 3000);
app.listen(port, (error) => {
  // Express 5 hands a failed start (the port is taken) to this callback.
  if (error) throw error;
  console.log(`Receiving webhooks on http://localhost:${port}/webhooks`);
});
