import { EVENT_TYPES } from '@svc-kit/webhooks';
import { newWebhookEndpoint } from '../resources/webhooks.js';
import type { OperationExample } from './types.js';

/** The workspace's one endpoint in these examples, as listed; built as creation builds one. */
const listed = newWebhookEndpoint(
  { id: 'whk_5f0c6a1e9b2d4c7a8e3f1b06', url: 'https://hooks.example.com/svc', events: ['message.received'] },
  1767139200000,
);

/** Examples of the workspace webhooks operations. The docs tests run each call against the mock and compare. */
export const webhooksExamples = {
  listWebhooks: {
    request: {
      auth: 'apiKey',
    },
    answer: {
      status: 200,
      body: {
        endpoints: [listed],
        // The list answer names the catalogue itself: one list, kept by the receiver SDK.
        events: [...EVENT_TYPES],
        enabled: true,
      },
    },
    refusals: [
      {
        summary: 'No credentials',
        request: {
          auth: 'none',
        },
        answer: {
          status: 401,
          body: {
            error: {
              code: 'unauthenticated',
              message: 'no portal session and no live API key',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  createWebhook: {
    request: {
      auth: 'session',
      body: {
        url: 'https://hooks.example.com/svc-new',
        events: ['message.received'],
      },
    },
    answer: {
      status: 201,
      body: {
        endpoint: newWebhookEndpoint(
          {
            id: 'whk_4cdc2246da087ce53f6318ab',
            url: 'https://hooks.example.com/svc-new',
            events: ['message.received'],
          },
          1767225600000,
        ),
        secret: 'whsec_tQHxodaKiEpoXThPLWHmqjfOXAZ_dSe_eBX38-pr7xs',
      },
    },
    refusals: [
      {
        summary: 'An API key: registering needs a stepped-up session',
        request: {
          auth: 'apiKey',
          body: {
            url: 'https://hooks.example.com/svc-new',
            events: [],
          },
        },
        answer: {
          status: 403,
          body: {
            error: {
              code: 'step_up_required',
              message: 'this operation needs a stepped-up session; API keys cannot step up',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
      {
        summary: 'A URL that is not https',
        request: {
          auth: 'session',
          body: {
            url: 'http://hooks.example.com/svc',
            events: [],
          },
        },
        answer: {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message: 'invalid url: url must use https',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  rotateWebhookSecret: {
    request: {
      auth: 'apiKey',
      params: {
        id: 'whk_5f0c6a1e9b2d4c7a8e3f1b06',
      },
    },
    answer: {
      status: 200,
      body: {
        secret: 'whsec_TNwiRtoIfOU_YxirtQHxodaKiEpoXThPLWHmqjfOXAY',
        previous_accepted_until: 1767312000000,
      },
    },
    refusals: [
      {
        summary: 'No endpoint with this id',
        request: {
          auth: 'apiKey',
          params: {
            id: 'whk_000000000000000000000000',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such webhook endpoint',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  setWebhookStatus: {
    request: {
      auth: 'apiKey',
      params: {
        id: 'whk_5f0c6a1e9b2d4c7a8e3f1b06',
      },
      body: {
        status: 'paused',
      },
    },
    answer: {
      status: 200,
      body: {
        endpoints: [{ ...listed, status: 'paused', updated_at: 1767225600000 }],
      },
    },
    refusals: [
      {
        summary: 'A status that does not exist',
        request: {
          auth: 'apiKey',
          params: {
            id: 'whk_5f0c6a1e9b2d4c7a8e3f1b06',
          },
          body: {
            status: 'stopped',
          },
        },
        answer: {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message: 'invalid body: status: Invalid option: expected one of "active"|"paused"',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  deleteWebhook: {
    request: {
      auth: 'apiKey',
      params: {
        id: 'whk_5f0c6a1e9b2d4c7a8e3f1b06',
      },
    },
    answer: {
      status: 204,
    },
    refusals: [
      {
        summary: 'No endpoint with this id',
        request: {
          auth: 'apiKey',
          params: {
            id: 'whk_000000000000000000000000',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such webhook endpoint',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  listWebhookDeliveries: {
    request: {
      auth: 'apiKey',
      params: {
        id: 'whk_5f0c6a1e9b2d4c7a8e3f1b06',
      },
      query: {
        limit: 20,
      },
    },
    answer: {
      status: 200,
      body: {
        deliveries: [
          {
            id: 'dlv_8c2e4a6b0d1f3a5c7e9b2d40',
            endpoint_id: 'whk_5f0c6a1e9b2d4c7a8e3f1b06',
            event_id: 'evt_3a9d1c7e5b2f4a8c6e0d1b37',
            event_type: 'message.received',
            attempt: 1,
            status: 'delivered',
            http_status: 200,
            latency_ms: 84,
            response_excerpt: '{"received":true}',
            next_attempt_at: null,
            created_at: 1767225600000,
          },
        ],
      },
    },
    refusals: [
      {
        summary: 'A limit out of range',
        request: {
          auth: 'apiKey',
          params: {
            id: 'whk_5f0c6a1e9b2d4c7a8e3f1b06',
          },
          query: {
            limit: '0',
          },
        },
        answer: {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message: 'invalid query: limit: expected an integer from 1 to 100',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
} satisfies Record<string, OperationExample>;
