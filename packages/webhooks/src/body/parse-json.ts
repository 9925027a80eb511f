import { WebhookVerificationError } from '../errors';
import type { BodyInput } from './raw-body';

// `fatal`: a body that is not UTF-8 is reported, not silently patched with U+FFFD before parsing.
const decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

function invalidJson(detail: string, cause: unknown): WebhookVerificationError {
  return new WebhookVerificationError(
    'invalid_json',
    `The signature is valid but the body is not JSON: ${detail}. Deliveries are always JSON; was the body ` +
      'decoded or re-encoded (e.g. gzip, a charset conversion) before it reached the SDK?',
    { cause },
  );
}

/** Parses a body whose signature has already been checked. */
export function parseJsonBody(body: BodyInput): unknown {
  let text: string;
  try {
    // The decoder drops a leading byte order mark; a string body gets the same treatment, so that every
    // form of one body gives the same answer.
    text =
      typeof body === 'string'
        ? body.charCodeAt(0) === 0xfeff
          ? body.slice(1)
          : body
        : decoder.decode(body);
  } catch (error) {
    throw invalidJson('it is not valid UTF-8', error);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // The engine's own message quotes the body; it stays on `cause`, out of responses and logs.
    throw invalidJson('it does not parse', error);
  }
}
