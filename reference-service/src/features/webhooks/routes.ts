import { randomBytes } from 'node:crypto';
import {
  endpointCapRefusal,
  ID_PREFIXES,
  type Operations,
  ROTATION_OVERLAP_MS,
  type WebhookEndpoint,
} from '@svc-kit/contract';
import { EVENT_TYPES } from '@svc-kit/webhooks';
import type { ServiceContext } from '../../context.js';
import { ServiceError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { checkWebhookUrl } from '../../domain/url-policy.js';
import { answer, type OperationHandler } from '../../http/operations.js';
import type { Queryable } from '../../store/db.js';
import { listNewestDeliveries } from '../../store/queries/webhook-deliveries.js';
import {
  countEndpointsLocked,
  getEndpointEvenRemoved,
  insertEndpoint,
  listLiveEndpoints,
  newEndpointRow,
  removeEndpoint,
  rotateEndpointSecret,
  setEndpointStatus,
} from '../../store/queries/webhook-endpoints.js';
import { deliveryRecord, endpointRecord } from './records.js';

function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

const notFound = () => new ServiceError('not_found', 'no such webhook endpoint');

async function liveEndpoints(db: Queryable, workspaceId: string, now: number): Promise<WebhookEndpoint[]> {
  return (await listLiveEndpoints(db, workspaceId)).map((row) => endpointRecord(row, now));
}

/** The workspace's webhook endpoint operations (spec 4.1). */
export function webhookRoutes(ctx: ServiceContext) {
  const listWebhooks: OperationHandler<Operations['listWebhooks']> = async ({ db, workspace, now }) =>
    answer('listWebhooks', 200, {
      endpoints: await liveEndpoints(db, workspace.id, now),
      events: [...EVENT_TYPES],
      enabled: workspace.webhooks_enabled,
    });

  const createWebhook: OperationHandler<Operations['createWebhook']> = async ({
    workspace,
    body,
    now,
    request,
  }) => {
    const verdict = await checkWebhookUrl(body.url, {
      resolve: ctx.resolveHost,
      allowLocalhost: ctx.allowLocalhostWebhooks,
    });
    if (!verdict.ok) throw new ServiceError('invalid_request', `invalid url: ${verdict.reason}`);
    const id = newId(ID_PREFIXES.webhookEndpoint);
    const secret = newSigningSecret();
    const row = newEndpointRow({
      id,
      workspaceId: workspace.id,
      url: verdict.url,
      // A filter is a set: repeats add nothing, and a stable order makes records comparable.
      events: [...new Set(body.events)],
      secretEnc: ctx.secretBox.seal(secret, id),
      now,
    });
    await ctx.db.transaction(async (tx) => {
      const capped = endpointCapRefusal(await countEndpointsLocked(tx, workspace.id));
      if (capped) throw new ServiceError('forbidden', capped);
      await insertEndpoint(tx, row);
    });
    request.log.info({ endpoint_id: id }, 'webhook endpoint created');
    return answer('createWebhook', 201, { endpoint: endpointRecord(row, now), secret });
  };

  const rotateWebhookSecret: OperationHandler<Operations['rotateWebhookSecret']> = async ({
    db,
    workspace,
    params,
    now,
  }) => {
    const secret = newSigningSecret();
    const row = await rotateEndpointSecret(
      db,
      workspace.id,
      params.id,
      ctx.secretBox.seal(secret, params.id),
      now + ROTATION_OVERLAP_MS,
      now,
    );
    if (!row || row.rotating_until === null) throw notFound();
    return answer('rotateWebhookSecret', 200, { secret, previous_accepted_until: row.rotating_until });
  };

  const setWebhookStatus: OperationHandler<Operations['setWebhookStatus']> = async ({
    db,
    workspace,
    params,
    body,
    now,
  }) => {
    const endpoints = await setEndpointStatus(db, workspace.id, params.id, body.status, now);
    if (!endpoints) throw notFound();
    return answer('setWebhookStatus', 200, { endpoints: endpoints.map((row) => endpointRecord(row, now)) });
  };

  const deleteWebhook: OperationHandler<Operations['deleteWebhook']> = async ({
    db,
    workspace,
    params,
    now,
  }) => {
    if (!(await removeEndpoint(db, workspace.id, params.id, now))) throw notFound();
    return answer('deleteWebhook', 204, undefined);
  };

  const listWebhookDeliveries: OperationHandler<Operations['listWebhookDeliveries']> = async ({
    db,
    workspace,
    params,
    query,
  }) => {
    // Removed endpoints are found too: their delivery log stays readable.
    if (!(await getEndpointEvenRemoved(db, workspace.id, params.id))) throw notFound();
    const rows = await listNewestDeliveries(db, workspace.id, params.id, query.limit);
    return answer('listWebhookDeliveries', 200, { deliveries: rows.map(deliveryRecord) });
  };

  // Single statements each (or the key's transaction): mode `none` (see operations.ts).
  const none = <H>(run: H) => ({ transaction: 'none' as const, run });
  return {
    listWebhooks: none(listWebhooks),
    createWebhook: none(createWebhook),
    rotateWebhookSecret: none(rotateWebhookSecret),
    setWebhookStatus: none(setWebhookStatus),
    deleteWebhook: none(deleteWebhook),
    listWebhookDeliveries: none(listWebhookDeliveries),
  };
}
