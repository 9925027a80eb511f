import type { WebhookDelivery } from '@svc-kit/contract';
import { useEffect, useState } from 'preact/hooks';
import type { SessionInfo } from '../api/account.js';
import { type DeliveryFilter, LOG_LIMIT, useLiveDeliveries } from '../api/live-deliveries.js';
import { api } from '../api/service.js';
import { type Activity, type ActivityWindow, webhookExtras } from '../api/webhook-extras.js';
import { ActivityChart } from '../ui/activity-chart.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useAction } from '../ui/use-action.js';
import { eventHref, LogFilters, LogTable } from './delivery-log.js';
import { type EndpointState, EndpointSummary } from './endpoint-summary.js';
import { TestEventForm } from './test-event-form.js';

/**
 * One endpoint's page: where it stands, its activity, the sandbox's test event, and its delivery log
 * (newest first, filtered on the service, updated without reload), each attempt openable.
 */
export function DeliveriesPage({ endpointId, session }: { endpointId: string; session: SessionInfo }) {
  const [filter, setFilter] = useState<DeliveryFilter>({});
  const { deliveries, problem, checkedAt } = useLiveDeliveries(endpointId, filter);
  const [state, setState] = useState<EndpointState>({ kind: 'loading' });
  const load = useAction();
  const reload = () =>
    load.run(async () => {
      const list = await api.webhooks.list();
      const endpoint = list.endpoints.find((e) => e.id === endpointId);
      setState(endpoint ? { kind: 'live', endpoint, deliveryOn: list.enabled } : { kind: 'removed' });
    });
  useEffect(() => {
    void reload();
  }, [endpointId]);
  const filtered = Object.keys(filter).length > 0;
  const title = state.kind === 'live' ? state.endpoint.url : endpointId;

  return (
    <main id="main">
      <p>
        <a href="#/webhooks">← Webhook endpoints</a>
      </p>
      <h1>
        Delivery log of <code class="break">{title}</code>
      </h1>
      <ProblemNote problem={load.problem} />
      <EndpointSummary endpointId={endpointId} state={state} onChanged={reload} />
      <ActivitySection endpointId={endpointId} log={deliveries} />
      <TestEventForm session={session} state={state} />
      <h2 id="log-title">Attempts, newest first</h2>
      <LogFilters filter={filter} onChange={setFilter} />
      {filter.event_id !== undefined && (
        <p data-testid="event-link">
          <a href={eventHref(filter.event_id)}>
            Every endpoint's attempt of <code>{filter.event_id}</code>
          </a>
        </p>
      )}
      <p class="muted" aria-live="off">
        Live: checked {checkedAt ? new Date(checkedAt).toLocaleTimeString() : '…'}
      </p>
      <ProblemNote problem={problem} />
      {deliveries !== undefined &&
        (deliveries.length === 0 ? (
          <p>{filtered ? 'No attempt matches these filters.' : 'No delivery yet.'}</p>
        ) : (
          <>
            <LogTable endpointId={endpointId} deliveries={deliveries} />
            {deliveries.length >= LOG_LIMIT && (
              <p class="muted" data-testid="log-cap">
                Only the newest {LOG_LIMIT} attempts{filtered ? ' that match these filters' : ''} are listed.
                For an older one, find its event by id, or narrow the list by status or event type.
              </p>
            )}
          </>
        ))}
    </main>
  );
}

/** The chart, read again whenever the live log shows a change (a new copy of the log arrived). */
function ActivitySection({ endpointId, log }: { endpointId: string; log: WebhookDelivery[] | undefined }) {
  const [period, setPeriod] = useState<ActivityWindow>('1h');
  const [activity, setActivity] = useState<Activity | undefined>(undefined);
  const load = useAction();
  useEffect(() => {
    void load.run(async () => setActivity(await webhookExtras.activity(endpointId, period)));
  }, [endpointId, period, log]);
  return (
    <section class="card" aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <label for="activity-window">Period</label>
      <select
        id="activity-window"
        value={period}
        onChange={(e) => setPeriod(e.currentTarget.value as ActivityWindow)}
      >
        <option value="1h">last hour, per minute</option>
        <option value="24h">last 24 hours, per half hour</option>
      </select>
      <ProblemNote problem={load.problem} />
      {activity && <ActivityChart activity={activity} />}
    </section>
  );
}
