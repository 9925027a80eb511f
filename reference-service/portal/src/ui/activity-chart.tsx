import type { Activity } from '../api/webhook-extras.js';
import { statusClass, statusLabel, statusOrder } from './delivery-status.js';

const WINDOW_WORDS = { '1h': 'the last hour', '24h': 'the last 24 hours' } as const;

/** Totals of a chart: attempts per status and the window's latency, for the caption and the screen reader. */
export function activitySummary(activity: Activity): string {
  const totals = new Map<string, number>();
  let slowest: number | null = null;
  const medians: number[] = [];
  for (const bucket of activity.buckets) {
    for (const [status, n] of Object.entries(bucket.attempts))
      totals.set(status, (totals.get(status) ?? 0) + n);
    if (bucket.latency_max_ms !== null) slowest = Math.max(slowest ?? 0, bucket.latency_max_ms);
    if (bucket.latency_p50_ms !== null) medians.push(bucket.latency_p50_ms);
  }
  const counts = statusOrder(totals.keys())
    .filter((status) => totals.has(status))
    .map((status) => `${totals.get(status)} ${statusLabel(status)}`);
  const over = WINDOW_WORDS[activity.window];
  if (counts.length === 0) return `No attempts in ${over}.`;
  const latency =
    slowest === null
      ? 'no answer timed'
      : `typical latency ${ms(medians.sort((a, b) => a - b)[medians.length >> 1] ?? slowest)}, slowest ${ms(slowest)}`;
  return `In ${over}: ${counts.join(', ')}; ${latency}${activity.truncated ? ' (the newest attempts only)' : ''}.`;
}

const ms = (value: number) => `${Math.round(value)} ms`;

/**
 * Attempts over time as stacked bars per status, with each bucket's median latency as a line on its own
 * scale: inline SVG drawn here from the service's counts, no remote asset and no inline style (the CSP
 * allows neither). The caption says the same in words; the picture is named by it for screen readers.
 * `compact` (the list's last hour) draws no picture of an empty window, only the words.
 */
export function ActivityChart({ activity, compact = false }: { activity: Activity; compact?: boolean }) {
  const width = compact ? 180 : 720;
  const height = compact ? 36 : 160;
  const pad = compact
    ? { top: 2, right: 2, bottom: 2, left: 2 }
    : { top: 12, right: 56, bottom: 22, left: 36 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const n = activity.buckets.length;
  const slot = plotW / n;
  const totals = activity.buckets.map((b) => Object.values(b.attempts).reduce((sum, x) => sum + x, 0));
  const maxCount = Math.max(1, ...totals);
  const maxLatency = Math.max(1, ...activity.buckets.map((b) => b.latency_p50_ms ?? 0));
  const order = statusOrder(activity.buckets.flatMap((b) => Object.keys(b.attempts)));
  const summary = activitySummary(activity);
  // An empty box reads as broken or loading: the list's small chart says there is nothing instead.
  if (compact && totals.every((total) => total === 0))
    return (
      <p class="muted chart-empty" data-testid="chart-empty">
        No attempts
      </p>
    );
  const x = (index: number) => pad.left + index * slot;
  const yCount = (count: number) => pad.top + plotH - (count / maxCount) * plotH;
  const yLatency = (value: number) => pad.top + plotH - (value / maxLatency) * plotH;
  const points = activity.buckets.flatMap((b, index) =>
    b.latency_p50_ms === null ? [] : [[x(index) + slot / 2, yLatency(b.latency_p50_ms)] as const],
  );

  return (
    <figure class={compact ? 'chart compact' : 'chart'}>
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={summary}>
        <rect class="chart-plot" x={pad.left} y={pad.top} width={plotW} height={plotH} />
        {activity.buckets.map((bucket, index) => {
          let base = 0;
          return order.map((status) => {
            const count = bucket.attempts[status] ?? 0;
            if (count === 0) return null;
            const top = yCount(base + count);
            const bottom = yCount(base);
            base += count;
            return (
              <rect
                key={`${index}-${status}`}
                class={`bar ${statusClass(status)}`}
                x={x(index) + 0.5}
                y={top}
                width={Math.max(1, slot - 1)}
                height={Math.max(1, bottom - top)}
              />
            );
          });
        })}
        {points.length > 1 && (
          <polyline class="latency" points={points.map(([px, py]) => `${px},${py}`).join(' ')} />
        )}
        {points.map(([px, py]) => (
          <circle key={`${px}`} class="latency-dot" cx={px} cy={py} r={compact ? 1.5 : 2.5} />
        ))}
        {!compact && (
          <>
            <text class="axis" x={pad.left - 4} y={pad.top + 8} text-anchor="end">
              {maxCount}
            </text>
            <text class="axis" x={pad.left - 4} y={pad.top + plotH} text-anchor="end">
              0
            </text>
            <text class="axis latency-axis" x={width - pad.right + 4} y={pad.top + 8}>
              {ms(maxLatency)}
            </text>
            <text class="axis" x={pad.left} y={height - 6}>
              {activity.window === '1h' ? '60 min ago' : '24 h ago'}
            </text>
            <text class="axis" x={width - pad.right} y={height - 6} text-anchor="end">
              now
            </text>
          </>
        )}
      </svg>
      {!compact && (
        <figcaption>
          <ul class="legend">
            {order
              .filter((status) => activity.buckets.some((b) => b.attempts[status]))
              .map((status) => (
                <li key={status}>
                  <svg width="12" height="12" aria-hidden="true">
                    <rect class={statusClass(status)} width="12" height="12" />
                  </svg>
                  {statusLabel(status)}
                </li>
              ))}
            <li>
              <svg width="16" height="12" aria-hidden="true">
                <line class="latency" x1="0" y1="6" x2="16" y2="6" />
              </svg>
              median latency (right scale)
            </li>
          </ul>
          <p data-testid="activity-summary">{summary}</p>
        </figcaption>
      )}
    </figure>
  );
}
