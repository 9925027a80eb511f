import { Webhooks } from '@svc-kit/webhooks';
import { webhookMiddleware } from '@svc-kit/webhooks/express';
import express from 'express';

/** The app's webhook receiver: it welcomes every contact one of its identities approves. */
export function createWebhookApp(secret: string, welcome: (identity: string, contact: string) => void) {
  const webhooks = new Webhooks({ secret });
  webhooks.on('contact.approved', (event) => welcome(event.identity, event.data.contact));

  const app = express();
  app.post('/webhooks', webhookMiddleware(webhooks));
  return app;
}
