import { ServiceError } from '../domain/errors.js';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_ITEMS } from '../domain/json-depth.js';
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
 * the header on DELETE); too deep, too many items, not JSON, or holding a NUL is a 400 (answered after authentication by
 * the error handler).
 */
export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  const unstorable = unstorableJson(raw, MAX_JSON_ITEMS);
  if (unstorable !== undefined) throw new UnreadableBody(unstorable);
  try {
    return JSON.parse(raw);
  } catch {
    throw new UnreadableBody('the body is not valid JSON');
  }
}

/**
 * Why JSON text could not be stored as it is (too deep, more than `maxItems` items, or a NUL); undefined
 * when it can. JSON text cannot carry a raw NUL, only the `\u0000` escape, so the value is walked only
 * when that escape appears. Peer bodies pass no item cap: their 64 KiB already bound the parse.
 */
export function unstorableJson(raw: string, maxItems = Number.POSITIVE_INFINITY): string | undefined {
  const shape = jsonShapeProblem(raw, MAX_JSON_DEPTH, maxItems);
  if (shape === 'depth') return `the body nests deeper than ${MAX_JSON_DEPTH} levels`;
  if (shape === 'items') return `the body holds more than ${maxItems} array items and object members`;
  if (!raw.includes('\\u0000')) return undefined;
  try {
    return holdsNul(JSON.parse(raw)) ? NUL_MESSAGE : undefined;
  } catch {
    return undefined;
  }
}
