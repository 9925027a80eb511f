import type { RawBody } from '../body/raw-body';
import { WebhookVerificationError } from '../errors';
import type { WebhookEvent } from '../events/types';
import type { HeaderInput } from '../headers/read-header';
import type { SignOptions } from '../options/sign-options';
import type { VerifyOptions } from '../options/verify-options';
import { failure, type VerifyResult } from '../verify/result';

// Web Crypto has no synchronous HMAC. The names still exist in the Web build so that code written for Node
// type-checks under every `moduleResolution` (TypeScript's "bundler" mode shows these types even to a Node
// server, whose runtime then loads the Node build) and bundles for the browser; called on a Web runtime,
// they fail with a message naming the function to use instead.
function syncUnavailable(name: string, replacement: string): WebhookVerificationError {
  return new WebhookVerificationError(
    'invalid_options',
    `${name}() is synchronous and needs node:crypto, which this runtime does not have (the Web build of ` +
      `@svc-kit/webhooks was loaded). Use \`await ${replacement}()\` instead, or new Webhooks(...) with an adapter.`,
  );
}

/** Node only. On a Web runtime this throws `invalid_options`: use `await verifyAsync()` there. */
export function verify(_body: RawBody, _headers: HeaderInput, _options: VerifyOptions): WebhookEvent {
  throw syncUnavailable('verify', 'verifyAsync');
}

/** Node only. On a Web runtime this throws `invalid_options`: use `await verifySignatureAsync()` there. */
export function verifySignature(
  _body: RawBody,
  _signatureHeader: string | null | undefined,
  _options: VerifyOptions,
): void {
  throw syncUnavailable('verifySignature', 'verifySignatureAsync');
}

/**
 * Node only. On a Web runtime this returns `{ ok: false }` with an `invalid_options` error (it never
 * throws): use `await safeVerifyAsync()` there.
 */
export function safeVerify(_body: unknown, _headers: HeaderInput, _options: VerifyOptions): VerifyResult {
  return failure(syncUnavailable('safeVerify', 'safeVerifyAsync'));
}

/** Node only. On a Web runtime this throws `invalid_options`: use `await signAsync()` there. */
export function sign(_body: RawBody, _options: SignOptions): string {
  throw syncUnavailable('sign', 'signAsync');
}
