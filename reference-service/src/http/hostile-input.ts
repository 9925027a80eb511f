import { ServiceError } from '../domain/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../domain/json-depth.js';
import { holdsNul } from '../domain/storable-text.js';

/** A body refused while it was read, before any handler (and so before authentication) ran. */
export class UnreadableBody extends ServiceError {
  constructor(message: string) {
    super('invalid_request', message);
  }
}

export const NUL_MESSAGE = 'the request holds a NUL character (U+0000), which the service cannot store';

/**
 * The `application/json` body parser of the /v1 API: an empty body means "no body" (some clients send
 * the header on DELETE); too deep, not JSON, or holding a NUL is a 400 (answered after authentication by
 * the error handler).
 */
export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  const unstorable = unstorableJson(raw);
  if (unstorable !== undefined) throw new UnreadableBody(unstorable);
  try {
    return JSON.parse(raw);
  } catch {
    throw new UnreadableBody('the body is not valid JSON');
  }
}

/**
 * Why JSON text could not be stored as it is (too deep, or a NUL); undefined when it can. JSON text cannot
 * carry a raw NUL, only the `\u0000` escape, so the value is walked only when that escape appears.
 */
export function unstorableJson(raw: string): string | undefined {
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) return `the body nests deeper than ${MAX_JSON_DEPTH} levels`;
  if (!raw.includes('\\u0000')) return undefined;
  try {
    return holdsNul(JSON.parse(raw)) ? NUL_MESSAGE : undefined;
  } catch {
    return undefined;
  }
}
