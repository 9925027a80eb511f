import {
  DELIVERY_STATUSES,
  EVENT_TYPES,
  RESPONSE_EXCERPT_BYTES,
  type WebhookDelivery,
} from '@svc-kit/contract';
import { useEffect, useState } from 'preact/hooks';
import type { DeliveryFilter } from '../api/live-deliveries.js';
import { type SentRequest, webhookExtras } from '../api/webhook-extras.js';
import { AttemptCells } from '../ui/attempt-cells.js';
import { statusLabel } from '../ui/delivery-status.js';
import { prettyJson } from '../ui/pretty-json.js';
import { ProblemNote } from '../ui/problem-note.js';
import { Table } from '../ui/table.js';
import { when } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { NoAnswerNote, unanswered } from './no-answer-note.js';

const COLUMNS = ['When', 'Event', 'Status', 'HTTP', 'Latency', 'Details'];

/** The log's filters: status and type apply as chosen; an event id is looked up when the form is sent. */
export function LogFilters({
  filter,
  onChange,
}: {
  filter: DeliveryFilter;
  onChange: (f: DeliveryFilter) => void;
}) {
  const [eventId, setEventId] = useState(filter.event_id ?? '');
  const set = (patch: DeliveryFilter) => onChange(withoutEmpty({ ...filter, ...patch }));
  return (
    <form
      class="filters"
      aria-label="Filter the log"
      onSubmit={(e) => {
        e.preventDefault();
        set({ event_id: eventId.trim() || undefined });
      }}
    >
      <div>
        <label for="filter-status">Filter by status</label>
        <select
          id="filter-status"
          value={filter.status ?? ''}
          onChange={(e) => set({ status: (e.currentTarget.value || undefined) as DeliveryFilter['status'] })}
        >
          <option value="">any status</option>
          {DELIVERY_STATUSES.map((status) => (
            <option key={status} value={status}>
              {statusLabel(status)}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="filter-type">Filter by event type</label>
        <select
          id="filter-type"
          value={filter.event_type ?? ''}
          onChange={(e) =>
            set({ event_type: (e.currentTarget.value || undefined) as DeliveryFilter['event_type'] })
          }
        >
          <option value="">any type</option>
          {EVENT_TYPES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="filter-event">Find by event id</label>
        <input
          id="filter-event"
          placeholder="evt_…"
          maxLength={64}
          value={eventId}
          onInput={(e) => setEventId(e.currentTarget.value)}
        />
      </div>
      <button type="submit">Find</button>
      <button
        type="button"
        onClick={() => {
          setEventId('');
          onChange({});
        }}
      >
        Clear filters
      </button>
    </form>
  );
}

function withoutEmpty(filter: DeliveryFilter): DeliveryFilter {
  return Object.fromEntries(
    Object.entries(filter).filter(([, value]) => value !== undefined && value !== ''),
  );
}

/** The attempts, each with a button that opens what was sent beside what came back. */
export function LogTable({ endpointId, deliveries }: { endpointId: string; deliveries: WebhookDelivery[] }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <Table
      columns={COLUMNS}
      rows={deliveries.length}
      empty=""
      labelledBy="log-title"
      testId="delivery-log"
      grouped
    >
      {deliveries.map((d) => (
        <tbody key={d.id} data-event-id={d.event_id} data-status={d.status} class="attempt">
          <tr>
            <td>{when(d.created_at)}</td>
            <td>
              <code>{d.event_type}</code>
              <br />
              <a href={eventHref(d.event_id)} title="This event and every endpoint's attempt of it">
                <code>{d.event_id}</code>
              </a>
            </td>
            <AttemptCells delivery={d} />
            <td>
              <button
                type="button"
                class="link"
                aria-expanded={open.has(d.id)}
                aria-controls={`detail-${d.id}`}
                onClick={() => toggle(d.id)}
              >
                {open.has(d.id) ? 'Hide' : 'Show'}
                <span class="visually-hidden"> the request and answer of {d.event_id}</span>
              </button>
            </td>
          </tr>
          {open.has(d.id) && (
            <tr id={`detail-${d.id}`}>
              <td colSpan={COLUMNS.length}>
                <AttemptDetail endpointId={endpointId} delivery={d} />
              </td>
            </tr>
          )}
        </tbody>
      ))}
    </Table>
  );
}

/** What was sent (fetched when opened) beside what the endpoint answered. */
function AttemptDetail({ endpointId, delivery }: { endpointId: string; delivery: WebhookDelivery }) {
  const [sent, setSent] = useState<SentRequest | undefined>(undefined);
  const load = useAction();
  useEffect(() => {
    void load.run(async () => setSent(await webhookExtras.sentRequest(endpointId, delivery.id)));
  }, [endpointId, delivery.id]);
  return (
    <div class="attempt-detail" data-testid="attempt-detail">
      <section aria-label={`Request of ${delivery.event_id}`}>
        <h3>Request</h3>
        <ProblemNote problem={load.problem} />
        {sent && (
          <>
            <p>
              <code>
                {sent.request.method} {sent.url}
              </code>
            </p>
            <pre data-testid="sent-headers">
              {Object.entries(sent.request.headers)
                .map(([name, value]) => `${name}: ${value}`)
                .join('\n')}
            </pre>
            <p class="muted">
              The signature's time and values are not kept; the receiver verifies them with the secret.
            </p>
            {sent.request.body === null ? (
              <p>The event's body is no longer kept.</p>
            ) : (
              <pre data-testid="sent-body">{prettyJson(sent.request.body)}</pre>
            )}
          </>
        )}
      </section>
      <section aria-label={`Answer to ${delivery.event_id}`}>
        <h3>Answer</h3>
        <dl class="facts">
          <dt>Status</dt>
          <dd>{statusLabel(delivery.status)}</dd>
          <dt>HTTP</dt>
          <dd>{delivery.http_status ?? 'no answer'}</dd>
          <dt>Latency</dt>
          <dd>{delivery.latency_ms === null ? '—' : `${Math.round(delivery.latency_ms)} ms`}</dd>
          <dt>Attempt</dt>
          <dd>
            {delivery.attempt} · <code>{delivery.id}</code>
          </dd>
        </dl>
        <NoAnswerNote
          delivery={delivery}
          sent={sent}
          settled={sent !== undefined || load.problem !== undefined}
        />
        {!unanswered(delivery) && (
          <>
            <p>First {RESPONSE_EXCERPT_BYTES} bytes of the answer:</p>
            <pre class="excerpt" data-testid="answer-excerpt">
              {delivery.response_excerpt ?? '(none)'}
            </pre>
          </>
        )}
      </section>
    </div>
  );
}

/** The event's own page: its body and every endpoint's attempt, a URL to share. */
export function eventHref(eventId: string): string {
  return `#/events/${encodeURIComponent(eventId)}`;
}
