import { ROTATION_OVERLAP_MS, type WebhookEndpoint } from '@svc-kit/contract';
import { api } from '../api/service.js';
import { type Question, useConfirm } from '../ui/confirm-dialog.js';
import { ShownOnce } from '../ui/copy-button.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useStepUp } from '../ui/step-up.js';
import { when } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

/** A signing secret to show once, and what it is for. */
export interface Secret {
  title: string;
  value: string;
  note: string;
}

/** A new signing secret, shown once where it was made (the list's create form, an endpoint's rotation). */
export function ShownSecret({ secret }: { secret: Secret }) {
  return (
    <ShownOnce
      title={secret.title}
      value={secret.value}
      testId="signing-secret"
      note={{ text: secret.note, testId: 'secret-note' }}
    />
  );
}

/**
 * Pause or resume, rotate the secret, delete: one endpoint's actions, in its row of the list and on its own
 * page. Rotate and Delete ask first in the portal's dialog; `onChanged` reloads the page's copy of it.
 */
export function EndpointActions({
  endpoint,
  onChanged,
  onSecret,
}: {
  endpoint: WebhookEndpoint;
  onChanged: () => void;
  onSecret: (secret: Secret) => void;
}) {
  const guard = useStepUp();
  const act = useAction();
  const [ask, dialog] = useConfirm();
  const setStatus = async (status: 'active' | 'paused') => {
    if (await act.run(() => guard(() => api.webhooks.setStatus(endpoint.id, { status })))) onChanged();
  };
  const rotate = async () => {
    if (!(await ask(rotationQuestion(endpoint)))) return;
    const rotated = await act.run(() => guard(() => api.webhooks.rotateSecret(endpoint.id)));
    if (!rotated) return;
    onSecret({
      title: 'New signing secret',
      value: rotated.secret,
      note: `For the endpoint ${endpoint.url}. The previous secret keeps verifying until ${when(rotated.previous_accepted_until)}.`,
    });
    onChanged();
  };
  const remove = async () => {
    if (!(await ask(deletionQuestion(endpoint)))) return;
    // The answer has no body: `true` tells a deletion done from a refusal (undefined).
    const deleted = await act.run(() => guard(() => api.webhooks.delete(endpoint.id)).then(() => true));
    if (deleted) onChanged();
  };
  const paused = endpoint.status === 'paused';
  return (
    <>
      <button
        type="button"
        disabled={act.busy}
        onClick={() => setStatus(paused ? 'active' : 'paused')}
        aria-label={`${paused ? 'Resume' : 'Pause'} ${endpoint.url}`}
      >
        {paused ? 'Resume' : 'Pause'}
      </button>
      <button
        type="button"
        disabled={act.busy}
        onClick={rotate}
        aria-label={`Rotate secret of ${endpoint.url}`}
      >
        Rotate secret
      </button>
      <button
        type="button"
        class="danger"
        disabled={act.busy}
        onClick={remove}
        aria-label={`Delete ${endpoint.url}`}
      >
        Delete
      </button>
      <ProblemNote problem={act.problem} />
      {dialog}
    </>
  );
}

/**
 * What rotating does, asked before it is done (it cannot be undone). The overlap is the contract's; a
 * rotation during an overlap keeps the original secret's end and drops the one shown at the last rotation
 * (store/queries/webhook-endpoints.ts, rotateEndpointSecret).
 */
function rotationQuestion(endpoint: WebhookEndpoint): Question {
  const hours = ROTATION_OVERLAP_MS / 3_600_000;
  const url = <code class="break">{endpoint.url}</code>;
  if (endpoint.rotating_until === null)
    return {
      title: 'Rotate the signing secret?',
      confirm: 'Rotate secret',
      body: (
        <p>
          A new secret for {url} is made and shown once. For the next {hours} hours every delivery is signed
          with both the new and the current secret (two v1 values), so the receiver keeps verifying while you
          switch it to the new one; after that only the new secret signs.
        </p>
      ),
    };
  return {
    title: 'Rotate the signing secret again?',
    confirm: 'Rotate again',
    body: (
      <p>
        A rotation of {url} is already under way: the secret shown at the last rotation stops signing at once
        and a new one replaces it; the original secret keeps signing until {when(endpoint.rotating_until)}.
      </p>
    ),
  };
}

/** What deleting loses and what it keeps (docs/guide/open-choices.md, "Deleting an endpoint"). */
function deletionQuestion(endpoint: WebhookEndpoint): Question {
  return {
    title: 'Delete this endpoint?',
    confirm: 'Delete endpoint',
    destructive: true,
    body: (
      <>
        <p>
          <code class="break">{endpoint.url}</code> stops receiving events at once: nothing more is sent to
          it, deliveries still waiting are not sent (the log says so), and its signing secrets are erased.
          This cannot be undone.
        </p>
        <p>
          Its delivery log stays readable on its page (id <code>{endpoint.id}</code>). To stop deliveries for
          a while instead, pause it.
        </p>
      </>
    ),
  };
}
