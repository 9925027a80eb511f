import {
  ENDPOINTS_CREATED,
  endpointCapRefusal,
  hostCapRefusal,
  ID_PREFIXES,
  type NewWebhookEndpoint,
  newWebhookEndpoint,
  ROTATION_OVERLAP_MS,
  type WebhookEndpoint,
} from '@svc-kit/contract';
import type { ServiceContext } from '../../context.js';
import { limitBucket } from '../../domain/door-limits.js';
import { ServiceError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { localTargetHint } from '../../domain/local-targets.js';
import { checkWebhookUrl } from '../../domain/url-policy.js';
import { spendBudget } from '../../http/budget-guard.js';
import type { Db, Queryable } from '../../store/db.js';
import { getListener } from '../../store/queries/listeners.js';
import {
  insertEndpoint,
  liveEndpointUrlsLocked,
  newEndpointRow,
  rotateEndpointSecret,
} from '../../store/queries/webhook-endpoints.js';
import { eventFilter } from './rules.js';
import { newSigningSecret, rotateListenerSecret } from './secrets.js';

export type WebhooksDeps = Pick<
  ServiceContext,
  'secretBox' | 'resolveHost' | 'allowLocalhostWebhooks' | 'reach'
>;

export const notFound = () => new ServiceError('not_found', 'no such webhook endpoint');

/**
 * Checks the URL (with DNS: outside any transaction, so that no connection waits on a lookup), then counts
 * and inserts in one short transaction: the count is taken under a lock, so two creations cannot both pass
 * a cap (in all, or on one host).
 */
export async function createEndpoint(
  deps: WebhooksDeps,
  db: Db,
  workspaceId: string,
  input: Omit<NewWebhookEndpoint, 'id'>,
  now: number,
): Promise<{ record: WebhookEndpoint; secret: string }> {
  const verdict = await checkWebhookUrl(input.url, {
    resolve: deps.resolveHost,
    allowLocalhost: deps.allowLocalhostWebhooks,
  });
  if (!verdict.ok) {
    throw new ServiceError(
      'invalid_request',
      `invalid url: ${verdict.reason}${localTargetHint(input.url, 'webhooks', deps.allowLocalhostWebhooks, deps.reach)}`,
    );
  }
  const id = newId(ID_PREFIXES.webhookEndpoint);
  const secret = newSigningSecret();
  // The body's members are the record's, as given; the URL as checked, and a filter is a set.
  const record = newWebhookEndpoint(
    { ...input, id, url: verdict.url, events: eventFilter(input.events) },
    now,
  );
  const row = newEndpointRow(workspaceId, record, deps.secretBox.seal(secret, id));
  await db.transaction(async (tx) => {
    const liveUrls = await liveEndpointUrlsLocked(tx, workspaceId);
    const capped = endpointCapRefusal(liveUrls.length) ?? hostCapRefusal(row.url, liveUrls);
    if (capped) throw new ServiceError('forbidden', capped);
    await spendEndpointCreation(tx, workspaceId, now);
    await insertEndpoint(tx, row);
  });
  return { record, secret };
}

/**
 * A new secret, shown once; the replaced one keeps verifying until the answer's time. A listener has no
 * secret of its own: rotating one rotates the workspace's listener secret, for every listener at once
 * (secrets.ts). The operation's permission, `service:workspace:admin`, is the one that reads that secret.
 */
export async function rotateSecret(
  deps: WebhooksDeps,
  tx: Queryable,
  workspaceId: string,
  id: string,
  now: number,
): Promise<{ secret: string; previousAcceptedUntil: number }> {
  if ((await getListener(tx, workspaceId, id)) !== undefined) {
    return rotateListenerSecret(deps.secretBox, tx, workspaceId, now);
  }
  const secret = newSigningSecret();
  const sealed = deps.secretBox.seal(secret, id);
  const row = await rotateEndpointSecret(tx, workspaceId, id, sealed, now + ROTATION_OVERLAP_MS, now);
  if (!row || row.rotating_until === null) throw notFound();
  return { secret, previousAcceptedUntil: row.rotating_until };
}

/** One of the workspace's new endpoints and listeners (`ENDPOINTS_CREATED`), in the creating transaction. */
export async function spendEndpointCreation(tx: Queryable, workspaceId: string, now: number): Promise<void> {
  await spendBudget(tx, limitBucket('endpoints-created', workspaceId), ENDPOINTS_CREATED, now);
}
