import { randomBytes } from 'node:crypto';
import { rotationOutcome } from '@svc-kit/contract';
import type { Queryable } from '../../store/db.js';
import {
  getListenerSecret,
  type ListenerSecretRow,
  liveListenerIds,
  putListenerSecret,
  setListenerRowSecrets,
  setListenerSecret,
} from '../../store/queries/listeners.js';
import type { SecretBox } from '../../store/secret-box.js';
import { SIGNING_SECRET_BYTES, signingSecretOf } from './rules.js';

/** A new signing secret from fresh random bytes: an endpoint's, or the relay's for its listeners. */
export const newSigningSecret = () => signingSecretOf(randomBytes(SIGNING_SECRET_BYTES));

/**
 * The workspace's listener secret in clear: the current one, and the one a rotation replaced while it still
 * signs (second), with the end of that overlap.
 */
export interface ListenerSecrets {
  secret: string;
  previous: { secret: string; until: number } | null;
}

/** The workspace's listener secrets at `now`, created on first use. */
export async function listenerSecrets(
  secretBox: SecretBox,
  db: Queryable,
  workspaceId: string,
  now: number,
): Promise<ListenerSecrets> {
  const row =
    (await getListenerSecret(db, workspaceId)) ??
    (await putListenerSecret(db, workspaceId, secretBox.seal(newSigningSecret(), workspaceId), now));
  const overlapping =
    row.previous_secret_enc !== null && row.rotating_until !== null && row.rotating_until > now;
  return {
    secret: secretBox.open(row.secret_enc, workspaceId),
    previous: overlapping
      ? { secret: secretBox.open(row.previous_secret_enc!, workspaceId), until: row.rotating_until! }
      : null,
  };
}

/** The secrets sealed for one holder: the workspace's row (its id) or a listener's endpoint row (its id). */
export function sealedFor(
  secretBox: SecretBox,
  boundTo: string,
  secrets: ListenerSecrets,
): ListenerSecretRow {
  return {
    secret_enc: secretBox.seal(secrets.secret, boundTo),
    previous_secret_enc: secrets.previous ? secretBox.seal(secrets.previous.secret, boundTo) : null,
    rotating_until: secrets.previous?.until ?? null,
  };
}

/**
 * Rotates the workspace's listener secret, by the rule of any endpoint's rotation (the contract's
 * `rotationOutcome`: within an overlap, the secret from before the first rotation stays until its end), and
 * gives every live listener the new pair at once: `listen --print-secret`, a reconnecting `listen` and every
 * listener's signatures agree. Run in a transaction; the workspace's row is locked, as a listener's opening
 * locks it, so a listener opened meanwhile gets either the old pair before the rotation updates it, or the
 * new one.
 */
export async function rotateListenerSecret(
  secretBox: SecretBox,
  tx: Queryable,
  workspaceId: string,
  now: number,
): Promise<{ secret: string; previousAcceptedUntil: number }> {
  await tx.query('SELECT id FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
  const current = await listenerSecrets(secretBox, tx, workspaceId, now);
  const outcome = rotationOutcome(current.previous?.until ?? null, now);
  const kept = outcome.keep === 'previous' ? current.previous!.secret : current.secret;
  const rotated: ListenerSecrets = {
    secret: newSigningSecret(),
    previous: { secret: kept, until: outcome.previousAcceptedUntil },
  };
  await setListenerSecret(tx, workspaceId, sealedFor(secretBox, workspaceId, rotated));
  for (const id of await liveListenerIds(tx, workspaceId)) {
    await setListenerRowSecrets(tx, id, sealedFor(secretBox, id, rotated), now);
  }
  return { secret: rotated.secret, previousAcceptedUntil: outcome.previousAcceptedUntil };
}
