import type { WebhookDelivery } from '@svc-kit/contract';
import { statusClass, statusLabel } from './delivery-status.js';
import { when } from './time.js';

/** An attempt's status (with its next try), HTTP status and latency: the same cells on every page that lists attempts. */
export function AttemptCells({ delivery: d }: { delivery: WebhookDelivery }) {
  return (
    <>
      <td>
        <span class={`badge ${statusClass(d.status)}`}>{statusLabel(d.status)}</span>
        {d.next_attempt_at !== null && ` (next try ${when(d.next_attempt_at)})`}
      </td>
      <td>{d.http_status ?? '—'}</td>
      <td>{d.latency_ms === null ? '—' : `${Math.round(d.latency_ms)} ms`}</td>
    </>
  );
}
