import * as z from 'zod/mini';
import { describe } from 'zod/v4/core';

/** The body of every refusal (spec part 7). `code` is one of `ERROR_CODES`, typed as a string so that a
 * client keeps working when a later version adds a code. */
export const errorBodySchema = z.strictObject({
  error: z.strictObject({
    code: z.string().check(describe('Stable, machine-readable; see the error-codes page.')),
    message: z.string(),
    request_id: z.string().check(describe('The id the service logged the call under.')),
    retry_after: z
      .optional(z.int().check(z.nonnegative()))
      .check(describe('On 429: seconds until the window closes, as in the Retry-After header.')),
  }),
});
export type ErrorBody = z.output<typeof errorBodySchema>;
