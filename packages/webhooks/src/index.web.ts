// The Web build: Web Crypto for the asynchronous API, a pure-JavaScript SHA-256 for the synchronous one.
// Nothing here may import `node:*` or use Buffer (a test reads the built file to check).
import { WebhooksCore, type WebhooksOptions } from './handler/webhooks';
import { verifyAsync } from './web/api';

export * from './index.common';
export {
  createTestHeaders,
  safeVerifyAsync,
  signAsync,
  verifyAsync,
  verifySignatureAsync,
} from './web/api';
export { safeVerify, sign, verify, verifySignature } from './web/sync';

/** Verifies deliveries and routes them to typed handlers; `handle()` is what the adapters call. */
export class Webhooks extends WebhooksCore {
  constructor(options: WebhooksOptions) {
    super(options, verifyAsync);
  }
}
