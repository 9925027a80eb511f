import { FAILURES_BEFORE_PAUSE, type WebhookEndpoint } from '@svc-kit/contract';
import { useState } from 'preact/hooks';
import { failuresInARow } from '../ui/delivery-status.js';
import { when } from '../ui/time.js';
import { EndpointActions, type Secret, ShownSecret } from './endpoint-actions.js';

/** Where an endpoint stands, as its log page opens with it. `removed`: not among the live endpoints. */
export type EndpointState =
  | { kind: 'loading' }
  | { kind: 'live'; endpoint: WebhookEndpoint; deliveryOn: boolean }
  | { kind: 'removed' };

/**
 * The endpoint at the top of its log: URL, status, filter and rotation; a paused endpoint says so and what
 * that means for events. Its actions are the list's (pause or resume, rotate, delete).
 */
export function EndpointSummary({
  endpointId,
  state,
  onChanged,
}: {
  endpointId: string;
  state: EndpointState;
  onChanged: () => void;
}) {
  const [secret, setSecret] = useState<Secret | undefined>(undefined);
  if (state.kind === 'loading') return null;
  if (state.kind === 'removed') {
    return (
      <section class="card notice" aria-labelledby="endpoint-title">
        <h2 id="endpoint-title">Removed endpoint</h2>
        <p>
          The endpoint <code>{endpointId}</code> was removed: nothing is sent to it any more. Its delivery log
          stays readable below.
        </p>
      </section>
    );
  }
  const { endpoint, deliveryOn } = state;
  const paused = endpoint.status === 'paused';
  return (
    <section class="card" aria-labelledby="endpoint-title" data-testid="endpoint-summary">
      <h2 id="endpoint-title" class="visually-hidden">
        Endpoint
      </h2>
      <dl class="facts">
        <dt>URL</dt>
        <dd>
          <code>{endpoint.url}</code>
        </dd>
        <dt>Status</dt>
        <dd>
          <span class={paused ? 'badge badge-paused' : 'badge badge-active'}>{endpoint.status}</span>
          {endpoint.consecutive_failures > 0 &&
            ` · ${failuresInARow(endpoint.consecutive_failures)} (${FAILURES_BEFORE_PAUSE} pause it)`}
        </dd>
        <dt>Events</dt>
        <dd>{endpoint.events.length === 0 ? 'every event' : endpoint.events.join(', ')}</dd>
        <dt>Signing secret</dt>
        <dd>
          {endpoint.rotating_until === null
            ? 'one secret signs'
            : `rotating: the new and the previous secret both sign until ${when(endpoint.rotating_until)}`}
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{endpoint.id}</code>
        </dd>
      </dl>
      {paused && (
        <div class="notice" role="note" data-testid="paused-notice">
          <p>
            <strong>This endpoint is paused.</strong> Nothing is sent to it, and events that happen while it
            is paused are not kept for later: it receives only events that happen after it is resumed.
            {endpoint.consecutive_failures > 0 &&
              ' It was paused after failed deliveries: check that the receiver answers 2xx before resuming.'}
          </p>
        </div>
      )}
      <div class="actions" data-testid="endpoint-actions">
        <EndpointActions endpoint={endpoint} onChanged={onChanged} onSecret={setSecret} />
      </div>
      {secret && <ShownSecret secret={secret} />}
      {!deliveryOn && (
        <p class="notice" role="note">
          Webhook delivery is off for this workspace: nothing is sent to any endpoint until it is turned on on
          the <a href="#/webhooks">Webhook endpoints</a> page.
        </p>
      )}
    </section>
  );
}
