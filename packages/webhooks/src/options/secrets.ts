import { WebhookVerificationError } from '../errors';

function invalidSecret(detail: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_secret', `options.secret ${detail}`);
}

/**
 * The secrets to try, as given. The HMAC key is each secret's text as UTF-8, exactly: nothing is trimmed
 * or base64-decoded, because the service signs with the text it showed you.
 */
export function resolveSecrets(secret: unknown): readonly string[] {
  if (typeof secret === 'string') {
    if (secret.length === 0) {
      throw invalidSecret(
        'is empty. The environment variable holding the endpoint signing secret is probably not set.',
      );
    }
    return [secret];
  }
  if (Array.isArray(secret)) {
    if (secret.length === 0) throw invalidSecret('is an empty list; give at least one signing secret.');
    // Copied, so that a list changed later (or a sparse one) cannot differ from what was checked.
    const secrets: string[] = [];
    for (let index = 0; index < secret.length; index++) {
      const item: unknown = secret[index];
      if (typeof item !== 'string') throw invalidSecret(`[${index}] is not a string (got ${typeof item}).`);
      if (item.length === 0) {
        throw invalidSecret(`[${index}] is empty. An environment variable is probably not set.`);
      }
      secrets.push(item);
    }
    return secrets;
  }
  if (secret === undefined || secret === null) {
    throw invalidSecret('is missing: pass the endpoint signing secret shown when the webhook was created.');
  }
  throw invalidSecret(`must be a string or a list of strings (got ${typeof secret}).`);
}
