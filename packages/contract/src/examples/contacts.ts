import type { OperationExample } from './types.js';

/** Examples of the identity contacts operations. The docs tests run each call against the mock and compare. */
export const contactsExamples = {
  listContacts: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
      },
      query: {
        status: 'active',
      },
    },
    answer: {
      status: 200,
      body: {
        contacts: [
          {
            fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
            display_name: 'Ada Lovelace',
            status: 'active',
            preset: 'basic',
            permissions: ['messages:receive'],
            trust_flag: 'messages_only',
            petname: '',
            last_seen_at: 1767225600000,
            created_at: 1767225600000,
            endpoint: 'https://peers.sandbox.invalid/41b12e943c5e6581',
            address_claim: null,
            acceptance_unheard_since: null,
          },
        ],
      },
    },
    refusals: [
      {
        summary: 'A status that does not exist',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
          },
          query: {
            status: 'friends',
          },
        },
        answer: {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message:
                'invalid query: status: Invalid option: expected one of "active"|"pending_in"|"pending_out"|"blocked"',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  requestContact: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
      },
      body: {
        // A card in the service's signed format (reference-service/PEER-PROTOCOL.md), minted with a fixed
        // example key a day before the examples' clock; a real call sends a fresh card of the party.
        card: 'svc-card.v1.eyJmaW5nZXJwcmludCI6InNoYTI1NjpjODkwMzQ4MWNjOTE4ZTFjZmFlMjA3ZmEzYTkwZjllY2E3MWE1ZWZlMjdmY2MzOGFkMWMzMzhhMmVmNjFmZWYyIiwicHVibGljX2tleSI6InFDbUYzeU03TFFzVkFOdjVrZ045ZC11VlIwdk4zZFQ2dzVQamhEQkVoN3MiLCJkaXNwbGF5X25hbWUiOiJMaW51cyIsImVuZHBvaW50IjoiaHR0cHM6Ly9wZWVyLmV4YW1wbGUub3JnL3BlZXIvdjEiLCJpc3N1ZWRfYXQiOjE3NjcxMzkyMDAwMDAsImV4cGlyZXNfYXQiOjE3Njk3MzEyMDAwMDB9.LfZ384j6IB2u7obih5mGCkQlX873c_AY4O4WKrV0ThPUB-ToJyiLtLn2Fi7XD2OkHF-dXAiTaA1xr4nrmlxGDQ',
        note: 'Hello from the support team',
      },
    },
    answer: {
      status: 201,
      body: {
        status: 'pending',
        contact: {
          fingerprint: 'sha256:c8903481cc918e1cfae207fa3a90f9eca71a5efe27fcc38ad1c338a2ef61fef2',
          endpoint: 'https://peer.example.org/peer/v1',
          display_name: 'Linus',
        },
      },
    },
    refusals: [
      {
        summary: 'A card that cannot be read',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
          },
          body: {
            card: 'not-a-card',
          },
        },
        answer: {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message: 'card is not a contact card; the mock accepts cards made with createSandboxCard',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  updateContact: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
      },
      body: {
        preset: 'colleague',
      },
    },
    answer: {
      status: 200,
      body: {
        contact: {
          fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
          display_name: 'Ada Lovelace',
          status: 'active',
          preset: 'colleague',
          permissions: ['messages:receive', 'tools:list'],
          trust_flag: 'messages_only',
          petname: '',
          last_seen_at: 1767225600000,
          created_at: 1767225600000,
          endpoint: 'https://peers.sandbox.invalid/41b12e943c5e6581',
          address_claim: null,
          acceptance_unheard_since: null,
        },
      },
    },
    refusals: [
      {
        summary: 'No such contact',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:bf224a2f02f97701836120783485338f8bf188d01d6167662f047aec5c42f0e8',
          },
          body: {
            preset: 'colleague',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such contact',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  removeContact: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
      },
    },
    answer: {
      status: 200,
      body: {
        status: 'removed',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
        notified: true,
      },
    },
    refusals: [
      {
        summary: 'No such contact',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:bf224a2f02f97701836120783485338f8bf188d01d6167662f047aec5c42f0e8',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such contact',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  approveContact: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:62f30eef5c4c4a69a17b59542e6cce90b5d1ceee2d43648914c12588ec555c80',
      },
      body: {
        preset: 'colleague',
      },
    },
    answer: {
      status: 200,
      body: {
        status: 'approved',
        fingerprint: 'sha256:62f30eef5c4c4a69a17b59542e6cce90b5d1ceee2d43648914c12588ec555c80',
        preset: 'colleague',
        notified: true,
      },
    },
    refusals: [
      {
        summary: 'No pending request from this party',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:bf224a2f02f97701836120783485338f8bf188d01d6167662f047aec5c42f0e8',
          },
          body: {
            preset: 'colleague',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such contact',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  rejectContact: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:62f30eef5c4c4a69a17b59542e6cce90b5d1ceee2d43648914c12588ec555c80',
      },
    },
    answer: {
      status: 200,
      body: {
        status: 'rejected',
        fingerprint: 'sha256:62f30eef5c4c4a69a17b59542e6cce90b5d1ceee2d43648914c12588ec555c80',
        notified: true,
      },
    },
    refusals: [
      {
        summary: 'No pending request from this party',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:bf224a2f02f97701836120783485338f8bf188d01d6167662f047aec5c42f0e8',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such contact',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  notifyAcceptance: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
      },
    },
    answer: {
      status: 200,
      body: {
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
        notified: true,
        refusal: null,
      },
    },
    refusals: [
      {
        summary: 'No such contact',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:bf224a2f02f97701836120783485338f8bf188d01d6167662f047aec5c42f0e8',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such contact',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  listContactTools: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
      },
    },
    answer: {
      status: 200,
      body: {
        tools: [
          {
            name: 'lookup_order',
            description: 'Find an order by its number.',
            input_schema: {
              type: 'object',
            },
          },
        ],
      },
    },
    refusals: [
      {
        summary: 'No such contact',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:bf224a2f02f97701836120783485338f8bf188d01d6167662f047aec5c42f0e8',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such contact',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  callContactTool: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
      },
      body: {
        tool: 'lookup_order',
        arguments: {
          order: 'A-1042',
        },
      },
    },
    answer: {
      status: 200,
      body: {
        ok: true,
        result: {
          tool: 'lookup_order',
          arguments: {
            order: 'A-1042',
          },
        },
      },
    },
    refusals: [
      {
        summary: 'No tool name',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
          },
          body: {
            arguments: {},
          },
        },
        answer: {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message: 'invalid body: tool: Invalid input: expected string, received undefined',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  blockContact: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
      },
    },
    answer: {
      status: 200,
      body: {
        status: 'blocked',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
      },
    },
    refusals: [
      {
        summary: 'No such contact',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:bf224a2f02f97701836120783485338f8bf188d01d6167662f047aec5c42f0e8',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such contact',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  unblockContact: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:2055c37789632c15b4ae332b8b25870b8ec09c88032a84440b2e585e221d78ea',
      },
    },
    answer: {
      status: 200,
      body: {
        status: 'active',
        fingerprint: 'sha256:2055c37789632c15b4ae332b8b25870b8ec09c88032a84440b2e585e221d78ea',
      },
    },
    refusals: [
      {
        summary: 'No such contact',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:bf224a2f02f97701836120783485338f8bf188d01d6167662f047aec5c42f0e8',
          },
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such contact',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  setPetname: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
      },
      body: {
        petname: 'Ada (billing)',
      },
    },
    answer: {
      status: 200,
      body: null,
    },
    refusals: [
      {
        summary: 'No petname',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
          },
          body: {},
        },
        answer: {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message: 'invalid body: petname: Invalid input: expected string, received undefined',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  refreshContact: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
      },
      body: {},
    },
    answer: {
      status: 200,
      body: {
        outcome: 'unchanged',
      },
    },
    refusals: [
      {
        summary: 'No such contact',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:bf224a2f02f97701836120783485338f8bf188d01d6167662f047aec5c42f0e8',
          },
          body: {},
        },
        answer: {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'no such contact',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
  setTrust: {
    request: {
      auth: 'apiKey',
      params: {
        slug: 'support-bot',
        fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
      },
      body: {
        trust: 'may_instruct',
      },
    },
    answer: {
      status: 200,
      body: null,
    },
    refusals: [
      {
        summary: 'A trust value that does not exist',
        request: {
          auth: 'apiKey',
          params: {
            slug: 'support-bot',
            fingerprint: 'sha256:41b12e943c5e658167c3dfc9b458e78f3e05b8d28181a93cf39c35a60bf678b9',
          },
          body: {
            trust: 'everything',
          },
        },
        answer: {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message: 'invalid body: trust: Invalid option: expected one of "messages_only"|"may_instruct"',
              request_id: 'req_eb87f952020796bdcb73be1b',
            },
          },
        },
      },
    ],
  },
} satisfies Record<string, OperationExample>;
