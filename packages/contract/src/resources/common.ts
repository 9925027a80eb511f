import * as z from 'zod';

/** Timestamps of API records: integer milliseconds since the Unix epoch (see the open-choices page). */
export const timestampMs = z.int().nonnegative().describe('Milliseconds since the Unix epoch.');

/** A path segment (`{slug}`, `{fingerprint}`, `{name}`, `{id}`): a string, never empty. */
export const pathSegment = z.string().min(1);

/** A free-form JSON object: string keys, any values. Used exactly where the spec leaves a shape open. */
export const freeFormObject = z.record(z.string(), z.unknown());

/**
 * An integer query parameter. Query values arrive as strings, so decimal digits are accepted and turned
 * into a number; a number is accepted as is (a typed caller). Anything else (`''`, `'1e2'`, `'0x10'`,
 * `' 5'`) is refused rather than coerced.
 */
export function queryInteger(min: number, max: number) {
  const expected = `expected an integer from ${min} to ${max}`;
  return z
    .union(
      [
        z.int(),
        z
          .string()
          .regex(/^[0-9]+$/)
          .transform(Number),
      ],
      { error: expected },
    )
    .pipe(z.int({ error: expected }).min(min, expected).max(max, expected));
}
