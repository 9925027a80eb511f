import { type RawBody, toBodyInput } from '../body/raw-body';
import { WebhookVerificationError } from '../errors';
import { HEADER_NAMES } from '../headers/names';
import type { SignOptions } from '../options/sign-options';

export interface TestHeaderOptions extends SignOptions {
  /** Default: the body's `id`. */
  eventId?: string | undefined;
  /** Default: the body's `type`. */
  eventType?: string | undefined;
  /** Default: a fresh `dlv_…` id. */
  deliveryId?: string | undefined;
}

export type CreateTestHeaders = (
  body: RawBody,
  options: TestHeaderOptions,
) => Promise<Record<string, string>>;

function idAndTypeOf(body: RawBody): { id?: unknown; type?: unknown } {
  const input = toBodyInput(body);
  try {
    const text = typeof input === 'string' ? input : new TextDecoder().decode(input);
    const json: unknown = JSON.parse(text);
    return typeof json === 'object' && json !== null ? (json as { id?: unknown; type?: unknown }) : {};
  } catch {
    return {};
  }
}

/** Builds `createTestHeaders` from a build's own signer and id source. */
export function makeCreateTestHeaders(
  signAsync: (body: RawBody, options: SignOptions) => Promise<string>,
  randomId: () => string,
): CreateTestHeaders {
  return async (body, options) => {
    const signature = await signAsync(body, options);
    const fromBody =
      options.eventId === undefined || options.eventType === undefined ? idAndTypeOf(body) : {};
    const eventId = options.eventId ?? fromBody.id;
    const eventType = options.eventType ?? fromBody.type;
    if (typeof eventId !== 'string' || typeof eventType !== 'string') {
      throw new WebhookVerificationError(
        'invalid_payload',
        'createTestHeaders takes the event id and type from the body, which has no string "id" and "type": ' +
          'pass options.eventId and options.eventType.',
      );
    }
    return {
      [HEADER_NAMES.signature]: signature,
      [HEADER_NAMES.eventId]: eventId,
      [HEADER_NAMES.eventType]: eventType,
      [HEADER_NAMES.delivery]: options.deliveryId ?? `dlv_${randomId()}`,
    };
  };
}
