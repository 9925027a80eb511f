/**
 * Reads a `Retry-After` header: delay-seconds (`'7'`) or an HTTP date. Returns whole seconds from `now`
 * (never negative), or `undefined` when the value is absent or unreadable.
 */
export function parseRetryAfterHeader(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^[0-9]+$/.test(trimmed)) return Number(trimmed);
  // Only an HTTP date (IMF-fixdate and its obsolete forms) carries letters; bare numbers are handled above.
  if (!/[A-Za-z]/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
