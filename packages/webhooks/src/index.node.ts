// The Node build: node:crypto, with the synchronous API as well as the asynchronous one.
import { WebhooksCore, type WebhooksOptions } from './handler/webhooks';
import { verifyAsync } from './node/api';

export * from './index.common';
export {
  createTestHeaders,
  safeVerify,
  safeVerifyAsync,
  sign,
  signAsync,
  verify,
  verifyAsync,
  verifySignature,
  verifySignatureAsync,
} from './node/api';

/** Verifies deliveries and routes them to typed handlers; `handle()` is what the adapters call. */
export class Webhooks extends WebhooksCore {
  constructor(options: WebhooksOptions) {
    super(options, verifyAsync);
  }
}
