import { EVENT_TYPES } from '@svc-kit/contract';
import { useState } from 'preact/hooks';
import { account, type SessionInfo } from '../api/account.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useAction } from '../ui/use-action.js';
import type { EndpointState } from './endpoint-summary.js';

/**
 * What a test event will do for this endpoint, said before it is sent and repeated after: the fan-out
 * decides once, when the event is recorded (spec 6.1), so a paused endpoint or a workspace with delivery
 * off never gets it, not even later.
 */
function outcomeFor(state: EndpointState): { ready: boolean; words: string } {
  if (state.kind !== 'live') return { ready: false, words: '' };
  if (!state.deliveryOn)
    return {
      ready: false,
      words:
        'Webhook delivery is off for this workspace: the event is not sent to this endpoint, now or later.',
    };
  if (state.endpoint.status === 'paused')
    return {
      ready: false,
      words:
        'This endpoint is paused: the event is not sent to it, now or after it is resumed (nothing is queued while paused). Resume it first to see a delivery here.',
    };
  return { ready: true, words: 'Its delivery appears in the log below within a few seconds.' };
}

/**
 * The sandbox's test event for this endpoint alone (the trigger's `endpoint`), offered with the event types
 * its filter lets through.
 */
export function TestEventForm({ session, state }: { session: SessionInfo; state: EndpointState }) {
  const filter = state.kind === 'live' ? state.endpoint.events : [];
  const types = filter.length === 0 ? EVENT_TYPES : EVENT_TYPES.filter((name) => filter.includes(name));
  const [chosen, setType] = useState<string>('');
  const type = types.includes(chosen as never) ? chosen : (types[0] ?? '');
  const [identity, setIdentity] = useState(session.identities[0]?.slug ?? '');
  const [sent, setSent] = useState('');
  const trigger = useAction();
  const outcome = outcomeFor(state);
  if (state.kind === 'removed') return null;

  const send = async (event: Event) => {
    event.preventDefault();
    setSent('');
    const answer = await trigger.run(() =>
      account.sendTestEvent({
        type,
        ...(identity ? { identity } : {}),
        ...(state.kind === 'live' ? { endpoint: state.endpoint.id } : {}),
      }),
    );
    const id = (answer as { event?: { id?: string } } | undefined)?.event?.id;
    if (answer) setSent(`Sent ${type}${id ? ` as ${id}` : ''}. ${outcome.words}`);
  };

  return (
    <form onSubmit={send} class="card" aria-labelledby="test-title">
      <h2 id="test-title">Send a test event</h2>
      <p class="muted">
        The sandbox records a catalogued event with sample data and sends it to this endpoint only, signed and
        delivered like a real one; the workspace's other endpoints do not get it.
        {filter.length > 0 && ' Only the event types this endpoint receives are offered.'}
      </p>
      <p id="test-outcome" class={outcome.ready ? 'muted' : 'notice'} data-testid="test-outcome">
        {outcome.words}
      </p>
      <label for="test-type">Event type</label>
      <select id="test-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
        {types.map((name) => (
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
      <button type="submit" disabled={trigger.busy} aria-describedby="test-outcome">
        Send test event
      </button>
      <p role="status">{sent}</p>
      <ProblemNote problem={trigger.problem} />
    </form>
  );
}
