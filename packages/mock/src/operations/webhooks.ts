import {
  DELIVERY_FILTER_WINDOW,
  EVENT_TYPES,
  endpointCapRefusal,
  hostCapRefusal,
  newWebhookEndpoint,
  passesDeliveryFilter,
  readsFilterWindow,
  resumedFailureRun,
  rotationOutcome,
} from '@svc-kit/contract';
import { invalid, notFound, Refusal } from '../http/refusal.js';
import type { EndpointRow, SandboxStore } from '../state/model.js';
import { deliveriesOf, endpointRecord, liveEndpoints } from '../state/records.js';
import type { Behaviours } from './behaviour.js';
import { spendEndpointCreation, spendFilteredRead } from './budgets.js';
import { webhookUrlProblem } from './webhook-url.js';

function liveEndpoint(store: SandboxStore, id: string): EndpointRow {
  const row = store.endpoints.get(id);
  if (!row || row.removed) throw notFound('webhook endpoint');
  return row;
}

export const webhookBehaviours = {
  listWebhooks: ({ store, now }) => ({
    status: 200,
    body: {
      endpoints: liveEndpoints(store, now),
      events: [...EVENT_TYPES],
      enabled: store.workspace.webhooksEnabled,
    },
  }),

  createWebhook: ({ store, body, now, ids, allowLoopbackReceivers }) => {
    const problem = webhookUrlProblem(body.url, allowLoopbackReceivers === true);
    if (problem !== undefined) throw invalid(`invalid url: ${problem}`);
    const live = [...store.endpoints.values()].filter((row) => !row.removed);
    const capped =
      endpointCapRefusal(live.length) ??
      hostCapRefusal(
        body.url,
        live.map((row) => row.record.url),
      );
    if (capped !== undefined) throw new Refusal('forbidden', capped);
    // Before the id is drawn: a create the budget refuses leaves the id stream where it was.
    spendEndpointCreation(store, now);
    const row: EndpointRow = {
      // The body's members are the record's, as given; the URL as parsed, and a filter is a set.
      record: newWebhookEndpoint(
        {
          ...body,
          id: ids.id('webhookEndpoint'),
          url: new URL(body.url).href,
          events: [...new Set(body.events)],
        },
        now,
      ),
      secret: ids.signingSecret(),
      previousSecret: null,
      removed: false,
    };
    store.endpoints.set(row.record.id, row);
    return { status: 201, body: { endpoint: endpointRecord(row, now), secret: row.secret } };
  },

  rotateWebhookSecret: ({ store, params, now, ids }) => {
    const row = liveEndpoint(store, params.id);
    // The contract's rule: a rotation during an overlap keeps the original secret until that overlap ends.
    const { keep, previousAcceptedUntil } = rotationOutcome(endpointRecord(row, now).rotating_until, now);
    if (keep === 'current') row.previousSecret = row.secret;
    row.secret = ids.signingSecret();
    row.record.rotating_until = previousAcceptedUntil;
    row.record.updated_at = now;
    return { status: 200, body: { secret: row.secret, previous_accepted_until: previousAcceptedUntil } };
  },

  setWebhookStatus: ({ store, params, body, now }) => {
    const row = liveEndpoint(store, params.id);
    // The contract's rule: a resume keeps the failure run, short of the pause; only a delivery clears it.
    if (body.status === 'active') {
      row.record.consecutive_failures = resumedFailureRun(row.record.consecutive_failures);
    }
    row.record.status = body.status;
    row.record.updated_at = now;
    return { status: 200, body: { endpoints: liveEndpoints(store, now) } };
  },

  deleteWebhook: ({ store, params }) => {
    liveEndpoint(store, params.id).removed = true;
    return { status: 204, body: undefined };
  },

  listWebhookDeliveries: ({ store, params, query, now }) => {
    if (readsFilterWindow(query)) spendFilteredRead(store, now);
    // A removed endpoint keeps its log; an id that was never an endpoint and has no log is unknown.
    const known = store.endpoints.has(params.id) || store.deliveries.some((d) => d.endpoint_id === params.id);
    if (!known) throw notFound('webhook endpoint');
    // Status and type look at the newest attempts only; an event id finds its attempt at any age.
    const log = deliveriesOf(store, params.id);
    const searched = query.event_id === undefined ? log.slice(0, DELIVERY_FILTER_WINDOW) : log;
    const deliveries = searched.filter((row) => passesDeliveryFilter(row, query));
    return { status: 200, body: { deliveries: deliveries.slice(0, query.limit) } };
  },
} satisfies Pick<
  Behaviours,
  | 'listWebhooks'
  | 'createWebhook'
  | 'rotateWebhookSecret'
  | 'setWebhookStatus'
  | 'deleteWebhook'
  | 'listWebhookDeliveries'
>;
