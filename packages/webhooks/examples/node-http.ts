import { createServer } from 'node:http';
import { Webhooks } from '@svc-kit/webhooks';
import { createNodeHandler } from '@svc-kit/webhooks/node-http';

// Throws at start-up if the secret is missing, instead of refusing every delivery later.
const webhooks = new Webhooks({ secret: process.env.SVC_WEBHOOK_SECRET ?? '' });

webhooks.on('message.received', async (event) => {
  // Deliveries carry ids only: fetch the message from the API when you need its content.
  console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
});

const handleWebhook = createNodeHandler(webhooks);

export const server = createServer((req, res) => {
  if (req.url === '/webhooks') return handleWebhook(req, res);
  res.writeHead(404).end();
});
server.listen(Number(process.env.PORT ?? 3000));
