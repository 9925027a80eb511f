import { fileURLToPath } from 'node:url';
import { Webhooks } from '@svc-kit/webhooks';
import { webhookPlugin } from '@svc-kit/webhooks/fastify';
import Fastify from 'fastify';

export async function createServer(secret: string) {
  const webhooks = new Webhooks({ secret });

  webhooks.on('message.received', (event) => {
    console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
  });

  const app = Fastify();
  // The plugin parses its own route's body as raw bytes; the rest of the app keeps Fastify's JSON parser.
  await app.register(webhookPlugin, { webhooks, path: '/webhooks' });
  return app;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const app = await createServer(process.env.SVC_WEBHOOK_SECRET ?? '');
  await app.listen({ port: 3000 });
}
