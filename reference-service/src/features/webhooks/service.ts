import { randomBytes } from 'node:crypto';
import { ID_PREFIXES, type WebhookDelivery, type WebhookEndpoint } from '@svc-kit/contract';
import type { ServiceContext } from '../../context.js';
import { ServiceError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { checkWebhookUrl } from '../../domain/url-policy.js';
import { type Db, type Queryable, runsOnPglite } from '../../store/db.js';
import { JsonText } from '../../store/json-text.js';
import { listNewestDeliveryRecords } from '../../store/queries/webhook-deliveries.js';
import {
  countEndpointsLocked,
  insertEndpoint,
  listLiveEndpointRecords,
  listLiveEndpointRows,
  newEndpointRow,
  removeEndpoint,
  rotateEndpointSecret,
  setEndpointStatus,
  type WebhookEndpointRow,
} from '../../store/queries/webhook-endpoints.js';
import { endpointRecord } from './records.js';
import {
  capRefusal,
  eventFilter,
  localReceiverHint,
  rotationEndsAt,
  SIGNING_SECRET_BYTES,
  signingSecretOf,
} from './rules.js';

/** What the endpoint operations need of the service's context. */
export type WebhooksDeps = Pick<ServiceContext, 'secretBox' | 'resolveHost' | 'allowLocalhostWebhooks'>;

const notFound = () => new ServiceError('not_found', 'no such webhook endpoint');

const newSigningSecret = () => signingSecretOf(randomBytes(SIGNING_SECRET_BYTES));

/**
 * The live endpoints as the API shows them, as JSON. PostgreSQL writes it (its backends spread over the
 * cores). PGlite's one thread writes the JSON of these few rows slower than this thread decodes and
 * writes them (its share of the call 71 against 39 µs; the call's CPU in all, 173 to 177 against 192 to
 * 197 µs: bench/RESULTS.md, fifteenth sitting), so there the rows are read and written here. For the
 * 100-row lists the database's JSON measured as fast or faster on both backends (fourteenth sitting).
 */
export async function liveEndpoints(
  db: Queryable,
  workspaceId: string,
  now: number,
): Promise<JsonText<WebhookEndpoint[]>> {
  if (!runsOnPglite(db)) return listLiveEndpointRecords(db, workspaceId, now);
  const rows = await listLiveEndpointRows(db, workspaceId);
  return new JsonText(JSON.stringify(rows.map((row) => endpointRecord(row, now))));
}

/**
 * Checks the URL (with DNS: outside any transaction, so that no connection waits on a lookup), then counts
 * and inserts in one short transaction: the count is taken under a lock, so two creations cannot both pass
 * the cap.
 */
export async function createEndpoint(
  deps: WebhooksDeps,
  db: Db,
  workspaceId: string,
  input: { url: string; events: readonly string[] },
  now: number,
): Promise<{ row: WebhookEndpointRow; secret: string }> {
  const verdict = await checkWebhookUrl(input.url, {
    resolve: deps.resolveHost,
    allowLocalhost: deps.allowLocalhostWebhooks,
  });
  if (!verdict.ok) {
    throw new ServiceError(
      'invalid_request',
      `invalid url: ${verdict.reason}${localReceiverHint(input.url, deps.allowLocalhostWebhooks)}`,
    );
  }
  const id = newId(ID_PREFIXES.webhookEndpoint);
  const secret = newSigningSecret();
  const row = newEndpointRow({
    id,
    workspaceId,
    url: verdict.url,
    events: eventFilter(input.events),
    secretEnc: deps.secretBox.seal(secret, id),
    now,
  });
  await db.transaction(async (tx) => {
    const capped = capRefusal(await countEndpointsLocked(tx, workspaceId));
    if (capped) throw new ServiceError(capped.code, capped.message);
    await insertEndpoint(tx, row);
  });
  return { row, secret };
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
  return endpoints.map((row) => endpointRecord(row, now));
}

export async function remove(db: Queryable, workspaceId: string, id: string, now: number): Promise<void> {
  if (!(await removeEndpoint(db, workspaceId, id, now))) throw notFound();
}

/** The newest deliveries of an endpoint as the API shows them; a removed endpoint's log stays readable. */
export async function deliveries(
  db: Queryable,
  workspaceId: string,
  id: string,
  limit: number,
): Promise<JsonText<WebhookDelivery[]>> {
  const records = await listNewestDeliveryRecords(db, workspaceId, id, limit);
  if (!records) throw notFound();
  return records;
}
