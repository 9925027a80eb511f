import type { Webhooks } from '@svc-kit/webhooks';

/**
 * What an adapter needs from a `Webhooks` instance: its `handle()`. Typed structurally so that an instance
 * of either build (Node or Web) fits whichever build the adapter's types resolve to.
 */
export type WebhookReceiver = Pick<Webhooks, 'handle'>;
