import { Webhooks } from '@svc-kit/webhooks';

export function createWebhooks(secret: string) {
  const webhooks = new Webhooks({ secret });

  webhooks.on('integration.exposure_updated', (event) => {
    // event.data is typed for this event: { integration: string; version: number }
    console.log(`exposure of ${event.data.integration} is now version ${event.data.version}`);
  });

  webhooks.on(['contact.approved', 'contact.removed'], (event) => {
    // event.type is 'contact.approved' | 'contact.removed'; contacts are named by a digest
    console.log(`${event.type}: ${event.data.contact}`);
  });

  webhooks.onAny((event) => {
    // Every verified event, including types newer than this version of the SDK.
    console.log(`received ${event.type} (${event.id})`);
  });

  return webhooks;
}
