import type { HeaderInput, WebhookResponse } from '@svc-kit/webhooks';
import type { WebhookReceiver } from './receiver';
import { adapterRefusal } from './refusal';

/**
 * Answers a request whose body something else already consumed, with `how` (the framework-specific fix)
 * as the message. The mistake is in the app's set-up, so it repeats on every delivery: it is reported to
 * the `onError` handlers the first time only, to raise it without flooding the logs.
 */
export function createParsedBodyRefusal(
  webhooks: WebhookReceiver,
  how: string,
): (request: { headers: HeaderInput }) => Promise<WebhookResponse> {
  let reported = false;
  return async ({ headers }) => {
    if (!reported) {
      reported = true;
      // `handle()` is the only way to reach the error handlers; given a parsed value (a stand-in here,
      // since a string would be mistaken for raw text) it refuses with `body_was_parsed` and reports it.
      await webhooks.handle({ body: PARSED_STAND_IN, headers });
    }
    return adapterRefusal(400, 'body_was_parsed', how);
  };
}

const PARSED_STAND_IN: Readonly<Record<string, never>> = Object.freeze({});
