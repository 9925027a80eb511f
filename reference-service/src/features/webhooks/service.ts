import { randomBytes } from 'node:crypto';
import {
  endpointAsShown,
  FILTERED_LOG_READS,
  ID_PREFIXES,
  type NewWebhookEndpoint,
  newWebhookEndpoint,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '@svc-kit/contract';
import type { ServiceContext } from '../../context.js';
import { ServiceError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { localTargetHint } from '../../domain/local-targets.js';
import { guessBucket } from '../../domain/sign-in-limits.js';
import { checkWebhookUrl } from '../../domain/url-policy.js';
import { countRefusal } from '../../http/sign-in-guard.js';
import type { Db, Queryable } from '../../store/db.js';
import { type DeliveryLogFilter, listNewestDeliveries } from '../../store/queries/webhook-deliveries.js';
import {
  insertEndpoint,
  listLiveEndpoints,
  liveEndpointUrlsLocked,
  newEndpointRow,
  removeEndpoint,
  rotateEndpointSecret,
  setEndpointStatus,
} from '../../store/queries/webhook-endpoints.js';
import { capRefusal, eventFilter, rotationEndsAt, SIGNING_SECRET_BYTES, signingSecretOf } from './rules.js';

/** What the endpoint operations need of the service's context. */
export type WebhooksDeps = Pick<
  ServiceContext,
  'secretBox' | 'resolveHost' | 'allowLocalhostWebhooks' | 'reach'
>;

const notFound = () => new ServiceError('not_found', 'no such webhook endpoint');

/** A new signing secret from fresh random bytes: an endpoint's, or the relay's for its listeners. */
export const newSigningSecret = () => signingSecretOf(randomBytes(SIGNING_SECRET_BYTES));

/**
 * The live endpoints as the API shows them: the store reads only the record's columns, so a row is shown
 * by the contract's rule as it is (`rotating_until` reads null once the overlap is over).
 */
export async function liveEndpoints(
  db: Queryable,
  workspaceId: string,
  now: number,
): Promise<WebhookEndpoint[]> {
  return (await listLiveEndpoints(db, workspaceId)).map((row) => endpointAsShown(row, now));
}

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
    const capped = capRefusal(row.url, await liveEndpointUrlsLocked(tx, workspaceId));
    if (capped) throw new ServiceError(capped.code, capped.message);
    await insertEndpoint(tx, row);
  });
  return { record, secret };
}

/** A new secret, shown once; the replaced one keeps verifying until the answer's time. */
export async function rotateSecret(
  deps: WebhooksDeps,
  db: Queryable,
  workspaceId: string,
  id: string,
  now: number,
): Promise<{ secret: string; previousAcceptedUntil: number }> {
  const secret = newSigningSecret();
  const sealed = deps.secretBox.seal(secret, id);
  const row = await rotateEndpointSecret(db, workspaceId, id, sealed, rotationEndsAt(now), now);
  if (!row || row.rotating_until === null) throw notFound();
  return { secret, previousAcceptedUntil: row.rotating_until };
}

/** Pauses or resumes an endpoint; answers every live endpoint of the workspace, as the operation does. */
export async function setStatus(
  db: Queryable,
  workspaceId: string,
  id: string,
  status: 'active' | 'paused',
  now: number,
): Promise<WebhookEndpoint[]> {
  const endpoints = await setEndpointStatus(db, workspaceId, id, status, now);
  if (!endpoints) throw notFound();
  return endpoints.map((row) => endpointAsShown(row, now));
}

export async function remove(db: Queryable, workspaceId: string, id: string, now: number): Promise<void> {
  if (!(await removeEndpoint(db, workspaceId, id, now))) throw notFound();
}

/**
 * Spends one of the workspace's reads through the log's filter window (the contract's budget) before the
 * read, in one statement on the handle given. Past the budget a 429 that reads nothing and spends nothing.
 */
export async function spendFilteredRead(db: Queryable, workspaceId: string, now: number): Promise<void> {
  await countRefusal(db, guessBucket('filtered-log-reads', workspaceId), FILTERED_LOG_READS, now);
}

/**
 * The newest deliveries of an endpoint as the API shows them, optionally filtered; a removed endpoint's log
 * stays readable.
 */
export async function deliveries(
  db: Queryable,
  workspaceId: string,
  id: string,
  limit: number,
  filter: DeliveryLogFilter = {},
): Promise<WebhookDelivery[]> {
  const rows = await listNewestDeliveries(db, workspaceId, id, limit, filter);
  if (!rows) throw notFound();
  return rows;
}
