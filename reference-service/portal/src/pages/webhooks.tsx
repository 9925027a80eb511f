import {
  type EventType,
  ROTATION_OVERLAP_MS,
  type WebhookEndpoint,
  type WebhookList,
} from '@svc-kit/contract';
import { useEffect, useState } from 'preact/hooks';
import { account, type SessionInfo } from '../api/account.js';
import { api } from '../api/service.js';
import { type Activity, webhookExtras } from '../api/webhook-extras.js';
import { ActivityChart } from '../ui/activity-chart.js';
import { ShownOnce } from '../ui/copy-button.js';
import { failuresInARow } from '../ui/delivery-status.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useStepUp } from '../ui/step-up.js';
import { Table } from '../ui/table.js';
import { when } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

interface Secret {
  title: string;
  value: string;
  note: string;
}

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
  const rotate = async (endpoint: WebhookEndpoint) => {
    if (!confirm(rotationWarning(endpoint))) return;
    const rotated = await act.run(() => guard(() => api.webhooks.rotateSecret(endpoint.id)));
    if (rotated) {
      setSecret({
        title: 'New signing secret',
        value: rotated.secret,
        note: `For the endpoint ${endpoint.url}. The previous secret keeps verifying until ${when(rotated.previous_accepted_until)}.`,
      });
      void reload();
    }
  };
  const setStatus = async (endpoint: WebhookEndpoint, status: 'active' | 'paused') => {
    if (await act.run(() => guard(() => api.webhooks.setStatus(endpoint.id, { status })))) void reload();
  };
  const remove = async (endpoint: WebhookEndpoint) => {
    if (!confirm(`Delete the endpoint ${endpoint.url}? Its delivery log stays readable.`)) return;
    await act.run(() => guard(() => api.webhooks.delete(endpoint.id)));
    void reload();
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
      {secret && (
        <ShownOnce
          title={secret.title}
          value={secret.value}
          testId="signing-secret"
          note={{ text: secret.note, testId: 'secret-note' }}
        />
      )}
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
              {endpoint.status === 'active' ? (
                <button
                  type="button"
                  onClick={() => setStatus(endpoint, 'paused')}
                  aria-label={`Pause ${endpoint.url}`}
                >
                  Pause
                </button>
              ) : (
                <button
                  type="button"
                  onClick={() => setStatus(endpoint, 'active')}
                  aria-label={`Resume ${endpoint.url}`}
                >
                  Resume
                </button>
              )}
              <button
                type="button"
                onClick={() => rotate(endpoint)}
                aria-label={`Rotate secret of ${endpoint.url}`}
              >
                Rotate secret
              </button>
              <button type="button" onClick={() => remove(endpoint)} aria-label={`Delete ${endpoint.url}`}>
                Delete
              </button>
            </td>
          </tr>
        ))}
      </Table>
    </main>
  );
}

/**
 * What rotating does, asked before it is done (it cannot be undone). The overlap is the contract's; a
 * rotation during an overlap keeps the original secret's end and drops the one shown at the last rotation
 * (store/queries/webhook-endpoints.ts, rotateEndpointSecret).
 */
function rotationWarning(endpoint: WebhookEndpoint): string {
  const hours = ROTATION_OVERLAP_MS / 3_600_000;
  if (endpoint.rotating_until === null)
    return (
      `Rotate the signing secret of ${endpoint.url}?\n\n` +
      `A new secret is made and shown once. For the next ${hours} hours every delivery is signed with both ` +
      'the new and the current secret (two v1 values), so the receiver keeps verifying while you switch it ' +
      'to the new one; after that only the new secret signs.'
    );
  return (
    `Rotate the signing secret of ${endpoint.url} again?\n\n` +
    'A rotation is already under way: the secret shown at the last rotation stops signing at once and a ' +
    `new one replaces it; the original secret keeps signing until ${when(endpoint.rotating_until)}.`
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
