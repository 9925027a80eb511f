import type { OperationExample } from './types.js';

/** Examples of the identity integrations operations. The docs tests run each call against the mock and compare. */
export const integrationsExamples = {
  listIntegrations: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
      },
    },
    answer: {
      status: 200,
      body: {
        integrations: [
          {
            id: 'int_8cb32c911a0929b9d971ac61',
            slug: 'crm',
            transport: 'streamable-http',
            endpoint: 'https://mcp.example.com/crm',
            status: 'healthy',
            permission: 'tools:call',
          },
          {
            id: 'int_50f43ed0f665bce49a0bab05',
            slug: 'calendar',
            transport: 'streamable-http',
            endpoint: 'https://mcp.example.com/calendar',
            status: 'needs_authorization',
            permission: 'tools:call',
          },
        ],
      },
    },
    refusals: [
      {
        summary: 'No credentials',
        request: {
          auth: 'none',
          params: {
            slug: 'support-bot',
          },
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
  createIntegration: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
      },
      body: {
        catalogue: 'tickets',
      },
    },
    answer: {
      status: 201,
      body: {
        integration: {
          id: 'int_4cdc2246da087ce53f6318ab',
          slug: 'tickets',
          transport: 'streamable-http',
          endpoint: 'https://mcp.example.com/tickets',
          status: 'healthy',
          permission: 'tools:call',
        },
        tools: 0,
        trouble: null,
        authorization_url: null,
      },
    },
    refusals: [
      {
        summary: 'Neither a catalogue entry nor an endpoint',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
          },
          body: {},
        },
        answer: {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message: 'give either catalogue or endpoint',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  authorizeIntegration: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        name: 'calendar',
      },
      body: {},
    },
    answer: {
      status: 200,
      body: {
        authorization_url:
          'https://oauth.sandbox.invalid/authorize?integration=int_50f43ed0f665bce49a0bab05&state=oas_4cdc2246da087ce53f6318ab',
      },
    },
    refusals: [
      {
        summary: 'No such integration',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            name: 'mail',
          },
          body: {},
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such integration',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  getExposure: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        name: 'crm',
      },
    },
    answer: {
      status: 200,
      body: {
        catalog: [
          {
            name: 'find_customer',
            description: 'Look a customer up by email.',
            input_schema: {
              type: 'object',
            },
          },
        ],
        entries: [
          {
            tool: 'find_customer',
            mode: 'passthrough',
          },
        ],
        version: 0,
        stale: [],
      },
    },
    refusals: [
      {
        summary: 'No such integration',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            name: 'mail',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such integration',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  setExposure: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        name: 'crm',
      },
      body: {
        entries: [
          {
            tool: 'find_customer',
            mode: 'passthrough',
          },
        ],
      },
    },
    answer: {
      status: 200,
      body: {
        version: 1,
      },
    },
    refusals: [
      {
        summary: 'An exposure mode that does not exist',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            name: 'crm',
          },
          body: {
            entries: [
              {
                tool: 'find_customer',
                mode: 'everyone',
              },
            ],
          },
        },
        answer: {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message:
                'invalid body: entries[0].mode: Invalid option: expected one of "passthrough"|"mapped"|"agent"',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  deleteIntegration: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        name: 'crm',
      },
    },
    answer: {
      status: 200,
      body: null,
    },
    refusals: [
      {
        summary: 'No such integration',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            name: 'mail',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such integration',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
} satisfies Record<string, OperationExample>;
