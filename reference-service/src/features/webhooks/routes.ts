import { endpointAsShown, readsFilterWindow } from '@svc-kit/contract';
import { EVENT_TYPES } from '@svc-kit/webhooks';
import { answer, type OperationTable } from '../../http/operations.js';
import * as service from './service.js';

/**
 * The workspace's webhook endpoint operations (spec 4.1): input in, answer out; the rules are in
 * rules.ts, the work in service.ts. Single statements each run on the handle given (mode `none`: the
 * pool, a confirming connection, or the key's transaction); createWebhook opens its own short
 * transaction after the URL's DNS check (mode `own`, see operations.ts).
 */
export function webhookRoutes(deps: service.WebhooksDeps) {
  return {
    listWebhooks: {
      transaction: 'none',
      run: async ({ db, workspace, now }) =>
        answer('listWebhooks', 200, {
          endpoints: await service.liveEndpoints(db, workspace.id, now),
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
      transaction: 'none',
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
      run: async ({ db, workspace, params, body, now }) =>
        answer('setWebhookStatus', 200, {
          endpoints: await service.setStatus(db, workspace.id, params.id, body.status, now),
        }),
    },
    deleteWebhook: {
      transaction: 'none',
      run: async ({ db, workspace, params, now }) => {
        await service.remove(db, workspace.id, params.id, now);
        return answer('deleteWebhook', 204, undefined);
      },
    },
    listWebhookDeliveries: {
      transaction: 'none',
      run: async ({ db, workspace, params, query, now }) => {
        if (readsFilterWindow(query)) await service.spendFilteredRead(db, workspace.id, now);
        const deliveries = await service.deliveries(db, workspace.id, params.id, query.limit, {
          status: query.status,
          eventType: query.event_type,
          eventId: query.event_id,
        });
        return answer('listWebhookDeliveries', 200, { deliveries });
      },
    },
  } satisfies OperationTable;
}
