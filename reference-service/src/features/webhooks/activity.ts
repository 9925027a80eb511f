import { budget } from '../../domain/door-limits.js';
import type { ActivityRow } from '../../store/queries/delivery-activity.js';

/**
 * The portal's activity chart, without I/O: which windows it offers, and the buckets it draws. Every
 * delivery status is counted under its own name, so a status the contract adds later is drawn too.
 */
export const ACTIVITY_WINDOWS = {
  '1h': { bucketMs: 60_000, buckets: 60 },
  '24h': { bucketMs: 30 * 60_000, buckets: 48 },
} as const;
type ActivityWindow = keyof typeof ACTIVITY_WINDOWS;

/**
 * Chart reads per workspace: 60, then one a second. Each reads up to an endpoint's newest attempts of the
 * filter window, and on PGlite's one thread a tenant asking without pause would slow every other tenant's
 * requests and delivery claims. The endpoints list (a small chart per endpoint, at most twenty) and a log
 * page re-reading its chart as the live log changes stay below it.
 */
export const ACTIVITY_READS = budget(60, 1_000, 'activity chart reads of this workspace');

/** The signature header as an attempt's detail shows it: its form, never a value. */
export const SIGNATURE_ELIDED = 't=<unix seconds>,v1=<elided>';

interface ActivityBucket {
  start: number;
  /** Attempts per delivery status; a status with none is absent. */
  attempts: Record<string, number>;
  latency_p50_ms: number | null;
  latency_max_ms: number | null;
}

/**
 * Every bucket of the window, empty ones included, in time order. `truncated` when the window held more
 * attempts than were read: the chart shows the newest ones.
 */
export function activityChart(
  window: ActivityWindow,
  since: number,
  activity: { rows: ActivityRow[]; read: number },
  maxRows: number,
) {
  const shape = ACTIVITY_WINDOWS[window];
  const buckets = Array.from(
    { length: shape.buckets },
    (_, index): ActivityBucket => ({
      start: since + index * shape.bucketMs,
      attempts: {},
      latency_p50_ms: null,
      latency_max_ms: null,
    }),
  );
  for (const row of activity.rows) {
    // The newest instant of the window falls one past the last bucket: it is drawn in the last.
    const bucket = buckets[Math.min(row.bucket, shape.buckets - 1)];
    if (bucket === undefined) continue;
    bucket.attempts[row.status] = (bucket.attempts[row.status] ?? 0) + row.attempts;
    bucket.latency_p50_ms ??= row.latency_p50_ms;
    bucket.latency_max_ms = maxOf(bucket.latency_max_ms, row.latency_max_ms);
  }
  return { window, since, bucket_ms: shape.bucketMs, buckets, truncated: activity.read >= maxRows };
}

function maxOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}
