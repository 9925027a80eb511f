import { endpointAsShown, FILTERED_LOG_READS, readsFilterWindow } from '@svc-kit/contract';
import { EVENT_TYPES } from '@svc-kit/webhooks';
import { limitBucket } from '../../domain/door-limits.js';
import { spendBudget } from '../../http/budget-guard.js';
import { answer, type OperationTable } from '../../http/operations.js';
import { listNewestDeliveries } from '../../store/queries/webhook-deliveries.js';
import {
  listLiveEndpoints,
  removeEndpoint,
  setEndpointStatus,
} from '../../store/queries/webhook-endpoints.js';
import * as service from './service.js';

/**
 * The workspace's webhook endpoint operations (spec 4.1): the rules are in rules.ts, creation and
 * rotation in service.ts. Single statements each run on the handle given (mode `none`: the pool, a
 * confirming connection, or the key's transaction); createWebhook opens its own short transaction after
 * the URL's DNS check (mode `own`, see operations.ts). The store reads only a record's columns, so a row
 * is shown by the contract's `endpointAsShown` as it is.
 */
export function webhookRoutes(deps: service.WebhooksDeps) {
  return {
    listWebhooks: {
      transaction: 'none',
      run: async ({ db, workspace, now }) =>
        answer('listWebhooks', 200, {
          endpoints: (await listLiveEndpoints(db, workspace.id)).map((row) => endpointAsShown(row, now)),
          events: [...EVENT_TYPES],
          enabled: workspace.webhooks_enabled,
        }),
    },
    createWebhook: {
      transaction: 'own',
      run: async ({ db, workspace, body, now, request }) => {
        const { record, secret } = await service.createEndpoint(deps, db, workspace.id, body, now);
        request.log.info({ endpoint_id: record.id }, 'webhook endpoint created');
        return answer('createWebhook', 201, { endpoint: endpointAsShown(record, now), secret });
      },
    },
    rotateWebhookSecret: {
      // A listener's rotation writes the workspace's secret and every listener's row together.
      transaction: 'one',
      run: async ({ db, workspace, params, now }) => {
        const rotated = await service.rotateSecret(deps, db, workspace.id, params.id, now);
        return answer('rotateWebhookSecret', 200, {
          secret: rotated.secret,
          previous_accepted_until: rotated.previousAcceptedUntil,
        });
      },
    },
    setWebhookStatus: {
      transaction: 'none',
      run: async ({ db, workspace, params, body, now }) => {
        // Every live endpoint of the workspace, as the operation answers.
        const endpoints = await setEndpointStatus(db, workspace.id, params.id, body.status, now);
        if (!endpoints) throw service.notFound();
        return answer('setWebhookStatus', 200, {
          endpoints: endpoints.map((row) => endpointAsShown(row, now)),
        });
      },
    },
    deleteWebhook: {
      transaction: 'none',
      run: async ({ db, workspace, params, now }) => {
        if (!(await removeEndpoint(db, workspace.id, params.id, now))) throw service.notFound();
        return answer('deleteWebhook', 204, undefined);
      },
    },
    listWebhookDeliveries: {
      transaction: 'none',
      run: async ({ db, workspace, params, query, now }) => {
        // A read through the filter window spends the workspace's budget first: past it, a 429 that
        // reads nothing.
        if (readsFilterWindow(query)) {
          await spendBudget(db, limitBucket('filtered-log-reads', workspace.id), FILTERED_LOG_READS, now);
        }
        // A removed endpoint's log stays readable.
        const deliveries = await listNewestDeliveries(db, workspace.id, params.id, query.limit, {
          status: query.status,
          eventType: query.event_type,
          eventId: query.event_id,
        });
        if (!deliveries) throw service.notFound();
        return answer('listWebhookDeliveries', 200, { deliveries });
      },
    },
  } satisfies OperationTable;
}
