/** A fixed delay in milliseconds, or a range each answer draws from (seeded, so runs repeat). */
export type Latency = number | { min: number; max: number };

function milliseconds(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new TypeError(`latency: ${what} must be a non-negative integer (ms)`);
  return value;
}

/** Checks a latency setting once, when it is given, so a bad one fails at setup rather than per call. */
export function checkLatency(latency: Latency | undefined): Latency | undefined {
  if (latency === undefined || typeof latency === 'number') {
    return latency === undefined ? undefined : milliseconds(latency, 'latency');
  }
  milliseconds(latency.min, 'min');
  milliseconds(latency.max, 'max');
  if (latency.min > latency.max) throw new TypeError('latency: min must not exceed max');
  return { min: latency.min, max: latency.max };
}

export function drawLatency(
  latency: Latency | undefined,
  between: (min: number, max: number) => number,
): number {
  if (latency === undefined) return 0;
  return typeof latency === 'number' ? latency : between(latency.min, latency.max);
}
