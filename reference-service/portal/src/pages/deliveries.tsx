import { EVENT_TYPES } from '@svc-kit/contract';
import { useState } from 'preact/hooks';
import { account, type SessionInfo } from '../api/account.js';
import { useLiveDeliveries } from '../api/live-deliveries.js';
import { ProblemNote } from '../ui/problem-note.js';
import { Table } from '../ui/table.js';
import { when } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

/** One endpoint's delivery log, newest first, updated without reload; and the sandbox's test event. */
export function DeliveriesPage({ endpointId, session }: { endpointId: string; session: SessionInfo }) {
  const { deliveries, problem, checkedAt } = useLiveDeliveries(endpointId);
  const [type, setType] = useState<string>(EVENT_TYPES[0] ?? '');
  const [identity, setIdentity] = useState(session.identities[0]?.slug ?? '');
  const [sent, setSent] = useState('');
  const trigger = useAction();

  const send = async (event: Event) => {
    event.preventDefault();
    setSent('');
    const answer = await trigger.run(() =>
      account.sendTestEvent({ type, ...(identity ? { identity } : {}) }),
    );
    const id = (answer as { event?: { id?: string } } | undefined)?.event?.id;
    if (answer) setSent(`Sent ${type}${id ? ` as ${id}` : ''}; its delivery appears below.`);
  };

  return (
    <main id="main">
      <p>
        <a href="#/webhooks">← Webhook endpoints</a>
      </p>
      <h1>
        Delivery log of <code>{endpointId}</code>
      </h1>
      <form onSubmit={send} class="card" aria-labelledby="test-title">
        <h2 id="test-title">Send a test event</h2>
        <p class="muted">
          The sandbox emits a catalogued event with sample data, signed and delivered like a real one.
        </p>
        <label for="test-type">Event type</label>
        <select id="test-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
          {EVENT_TYPES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <label for="test-identity">Identity</label>
        <select id="test-identity" value={identity} onChange={(e) => setIdentity(e.currentTarget.value)}>
          {session.identities.map(({ slug }) => (
            <option key={slug} value={slug}>
              {slug}
            </option>
          ))}
        </select>
        <button type="submit" disabled={trigger.busy}>
          Send test event
        </button>
        <p role="status">{sent}</p>
        <ProblemNote problem={trigger.problem} />
      </form>
      <h2 id="log-title">Attempts, newest first</h2>
      <p class="muted" aria-live="off">
        Live: checked {checkedAt ? new Date(checkedAt).toLocaleTimeString() : '…'}
      </p>
      <ProblemNote problem={problem} />
      <Table
        columns={['When', 'Event', 'Attempt', 'Status', 'HTTP', 'Latency', 'Answer (first 500 bytes)']}
        rows={deliveries?.length}
        empty="No delivery yet."
        labelledBy="log-title"
        testId="delivery-log"
      >
        {deliveries?.map((d) => (
          <tr key={d.id} data-event-id={d.event_id} data-status={d.status}>
            <td>{when(d.created_at)}</td>
            <td>
              <code>{d.event_type}</code>
              <br />
              <code class="muted">{d.event_id}</code>
            </td>
            <td>{d.attempt}</td>
            <td>
              {d.status}
              {d.next_attempt_at !== null && ` (next try ${when(d.next_attempt_at)})`}
            </td>
            <td>{d.http_status ?? '—'}</td>
            <td>{d.latency_ms === null ? '—' : `${Math.round(d.latency_ms)} ms`}</td>
            <td>
              <pre class="excerpt">{d.response_excerpt ?? ''}</pre>
            </td>
          </tr>
        ))}
      </Table>
    </main>
  );
}
