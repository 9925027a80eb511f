import { createHash } from 'node:crypto';

/** A repeat within 24 hours answers like the first call (spec part 8). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Keys are opaque to us; the bound keeps the stored row small. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** JSON with object keys sorted, so that `{a,b}` and `{b,a}` are the same arguments. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * What "the same arguments" means: the operation, its path parameters, its query and its parsed body.
 * The credential is not part of it: the key is scoped to the workspace.
 */
export function requestFingerprint(args: {
  operationId: string;
  pathParams: unknown;
  query: unknown;
  body: unknown;
}): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}
