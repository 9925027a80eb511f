/** Spec part 8: a repeat within 24 hours answers like the first call. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Keys are opaque, but not unbounded. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** JSON with object keys sorted and `undefined` members left out, so `{a,b}` and `{b,a}` read the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * What "the same arguments" of an idempotent call means, as text: the operation, its path parameters, its
 * query and its parsed body (defaults applied), keys sorted. The credential is not part of it: keys are
 * scoped to the workspace. Kept as plain text so the contract needs no crypto; a store may hash it.
 */
export function idempotencyArgumentsText(args: {
  operationId: string;
  params: unknown;
  query: unknown;
  body: unknown;
}): string {
  return canonicalJson({
    operationId: args.operationId,
    params: args.params ?? null,
    query: args.query ?? null,
    body: args.body ?? null,
  });
}

/**
 * Whether a refusal of an idempotent call is its first answer, replayed to a repeat like a success. The
 * operation's own refusals (400, 403, 404) are final for those arguments, so they are remembered (spec part
 * 4: a repeat returns the first answer). A 429 or a 5xx says "try again later", so the key stays free for
 * that retry. Refusals before the call ran (credentials, validation, a 422) never reach this question.
 */
export function isRememberedRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 429;
}
