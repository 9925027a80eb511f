import { Webhooks } from '@svc-kit/webhooks';
import { createFetchHandler } from '@svc-kit/webhooks/fetch';

const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', async (event) => {
  // Deliveries carry ids only: fetch the message from the API when you need its content.
  console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
});

// It answers every path it is given: route to it yourself when the app has others.
const handleWebhook = createFetchHandler(webhooks);

// Bun (`bun run`), Deno (`deno serve`) and Cloudflare Workers serve the default export. On the Edge
// runtime: addEventListener('fetch', (event) => event.respondWith(handleWebhook(event.request))).
export default { fetch: handleWebhook };
