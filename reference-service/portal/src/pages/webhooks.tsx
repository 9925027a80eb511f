import type { EventType, WebhookList } from '@svc-kit/contract';
import { useEffect, useState } from 'preact/hooks';
import { account, type SessionInfo } from '../api/account.js';
import { api } from '../api/service.js';
import { type Activity, webhookExtras } from '../api/webhook-extras.js';
import { ActivityChart } from '../ui/activity-chart.js';
import { failuresInARow } from '../ui/delivery-status.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useStepUp } from '../ui/step-up.js';
import { Table } from '../ui/table.js';
import { when } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { EndpointActions, type Secret, ShownSecret } from './endpoint-actions.js';

/** Webhook endpoints of the workspace, the delivery switch, and the shown-once signing secrets. */
export function WebhooksPage({ session, onChanged }: { session: SessionInfo; onChanged: () => void }) {
  const guard = useStepUp();
  const [list, setList] = useState<WebhookList | undefined>(undefined);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>([]);
  const [secret, setSecret] = useState<Secret | undefined>(undefined);
  const load = useAction();
  const act = useAction();
  const reload = () => load.run(async () => setList(await api.webhooks.list()));
  useEffect(() => {
    void reload();
  }, []);

  const create = async (event: Event) => {
    event.preventDefault();
    const created = await act.run(() => guard(() => api.webhooks.create({ url: url.trim(), events })));
    if (created) {
      setSecret({
        title: 'Signing secret',
        value: created.secret,
        note: `For the endpoint ${created.endpoint.url}.`,
      });
      setUrl('');
      setEvents([]);
      void reload();
    }
  };
  const toggleDelivery = async (enabled: boolean) => {
    if (await act.run(() => guard(() => account.setWebhooksEnabled(enabled)))) {
      onChanged();
      void reload();
    }
  };
  const enabled = list?.enabled ?? session.workspace.webhooks_enabled;

  return (
    <main id="main">
      <h1>Webhook endpoints</h1>
      <section aria-labelledby="delivery-title" class="card">
        <h2 id="delivery-title">Delivery for this workspace</h2>
        <label class="inline">
          <input
            type="checkbox"
            checked={enabled}
            disabled={act.busy}
            onChange={(e) => toggleDelivery(e.currentTarget.checked)}
          />
          Deliver webhooks
        </label>
        <p class="muted">
          While this is off, events are still recorded but nothing is sent to any endpoint of the workspace,
          and nothing is queued for later. Turn it on before expecting a delivery.
        </p>
      </section>
      <ProblemNote problem={load.problem} />
      <form onSubmit={create} aria-labelledby="create-title" class="card">
        <h2 id="create-title">Add an endpoint</h2>
        <label for="endpoint-url">Receiver URL</label>
        <input
          id="endpoint-url"
          type="url"
          required
          placeholder="https://example.com/webhooks"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <fieldset>
          <legend>Events (none ticked: every event)</legend>
          {(list?.events ?? []).map((name) => (
            <label class="inline" key={name}>
              <input
                type="checkbox"
                checked={(events as string[]).includes(name)}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setEvents((current) =>
                    on ? [...current, name as EventType] : current.filter((n) => n !== name),
                  );
                }}
              />
              <code>{name}</code>
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={act.busy}>
          Add endpoint
        </button>
      </form>
      <ProblemNote problem={act.problem} />
      {secret && <ShownSecret secret={secret} />}
      <h2>Endpoints</h2>
      <Table
        columns={['URL', 'Events', 'Status', 'Last hour', 'Rotation', 'Actions']}
        rows={list?.endpoints.length}
        empty="No endpoints yet."
      >
        {list?.endpoints.map((endpoint) => (
          <tr key={endpoint.id} data-endpoint={endpoint.id}>
            <td>
              <a href={`#/webhooks/${encodeURIComponent(endpoint.id)}`}>{endpoint.url}</a>
            </td>
            <td>{endpoint.events.length === 0 ? 'every event' : endpoint.events.join(', ')}</td>
            <td>
              <span class={endpoint.status === 'paused' ? 'badge badge-paused' : 'badge badge-active'}>
                {endpoint.status}
              </span>
              {endpoint.consecutive_failures > 0 && ` (${failuresInARow(endpoint.consecutive_failures)})`}
            </td>
            <td>
              <EndpointSparkline endpointId={endpoint.id} />
            </td>
            <td>
              {endpoint.rotating_until === null
                ? '—'
                : `old secret valid until ${when(endpoint.rotating_until)}`}
            </td>
            <td class="actions">
              <a href={`#/webhooks/${encodeURIComponent(endpoint.id)}`}>Delivery log</a>
              <EndpointActions endpoint={endpoint} onChanged={reload} onSecret={setSecret} />
            </td>
          </tr>
        ))}
      </Table>
    </main>
  );
}

/** The endpoint's last hour at a glance, in the list (the log page has the full chart). */
function EndpointSparkline({ endpointId }: { endpointId: string }) {
  const [activity, setActivity] = useState<Activity | undefined>(undefined);
  useEffect(() => {
    webhookExtras.activity(endpointId, '1h').then(setActivity, () => setActivity(undefined));
  }, [endpointId]);
  return activity ? <ActivityChart activity={activity} compact /> : null;
}
