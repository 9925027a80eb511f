import * as z from 'zod/mini';
import { config, globalConfig } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

// The contract's schemas are zod/mini (a fraction of classic zod's bundle, for the client on edge runtimes
// and in browsers), and zod/mini loads no locale: every message would read "Invalid input". English is set
// here, in the module every schema depends on (a bare side-effect import would be dropped: the package is
// marked side-effect free), unless the application already chose a locale; classic zod sets English on
// import too. So the client's ClientValidationError and the mock's and the service's 400s name the problem.
if (globalConfig.localeError === undefined) config(en());

import { describe } from 'zod/v4/core';

/** Timestamps of API records: integer milliseconds since the Unix epoch (see the open-choices page). */
export const timestampMs = z.int().check(z.nonnegative(), describe('Milliseconds since the Unix epoch.'));

/** A path segment (`{slug}`, `{fingerprint}`, `{name}`, `{id}`): a string, never empty. */
export const pathSegment = z.string().check(z.minLength(1));

/** A free-form JSON object: string keys, any values. Used exactly where the spec leaves a shape open. */
export const freeFormObject = z.record(z.string(), z.unknown());

/**
 * An integer query parameter. Query values arrive as strings, so decimal digits are accepted and turned
 * into a number; a number is accepted as is (a typed caller). Anything else (`''`, `'1e2'`, `'0x10'`,
 * `' 5'`) is refused rather than coerced.
 */
export function queryInteger(min: number, max: number) {
  const expected = `expected an integer from ${min} to ${max}`;
  return z.pipe(
    z.union([z.int(), z.pipe(z.string().check(z.regex(/^[0-9]+$/)), z.transform(Number))], {
      // A missing parameter is the usual mistake (a URL typed without `?limit=`): say so.
      error: (issue) => (issue.input === undefined ? `required, ${expected}` : expected),
    }),
    z.int({ error: expected }).check(z.minimum(min, expected), z.maximum(max, expected)),
  );
}
