import { ServiceError } from '../domain/errors.js';
import { holdsNul } from '../domain/storable-text.js';

/**
 * Bounds on what a request body may be before anything reads it. JSON nested deeper than this is refused
 * with a 400: the service's own bodies are at most a few levels deep, and a tool's `arguments` rarely more
 * than ten; recursion over a 5,000-level value (validation, fingerprinting, re-serialising) would exhaust
 * the stack instead.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests arrays and objects deeper than `max` (one linear pass, strings skipped). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > max) return true;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return false;
}

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
 * the error handler). JSON text cannot carry a raw NUL, only the `\u0000` escape, so the value is walked
 * only when that escape appears.
 */
export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
    throw new UnreadableBody(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new UnreadableBody('the body is not valid JSON');
  }
  if (raw.includes('\\u0000') && holdsNul(value)) throw new UnreadableBody(NUL_MESSAGE);
  return value;
}

/** Why raw JSON text could not be stored as it is (too deep, or a NUL); undefined when it can. */
export function unstorableJson(raw: string): string | undefined {
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) return `the body nests deeper than ${MAX_JSON_DEPTH} levels`;
  if (!raw.includes('\\u0000')) return undefined;
  try {
    return holdsNul(JSON.parse(raw)) ? NUL_MESSAGE : undefined;
  } catch {
    return undefined;
  }
}
