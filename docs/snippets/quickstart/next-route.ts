// app/api/webhooks/route.ts
import { Webhooks } from '@svc-kit/webhooks';
import { createFetchHandler } from '@svc-kit/webhooks/fetch';

const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', (event) => {
  console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
});

// The handler reads the untouched request body, so do not call request.json() before it.
export const POST = createFetchHandler(webhooks);
