// app/webhooks/route.ts
import { Webhooks } from '@svc-kit/webhooks';
import { createFetchHandler } from '@svc-kit/webhooks/fetch';

const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', async (event) => {
  // Deliveries carry ids only: fetch the message from the API when you need its content.
  console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
});

const handleWebhook = createFetchHandler(webhooks);

// Hand over the untouched request: do not call request.json() before it.
export async function POST(request: Request): Promise<Response> {
  return handleWebhook(request);
}
