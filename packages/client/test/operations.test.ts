import { Client } from '@svc-kit/client';
import { type OperationId, operations } from '@svc-kit/contract';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { contact, delivery, endpoint, integration } from './support/fixtures.js';
import { API_KEY, BASE_URL, record, type Seen, useServer } from './support/server.js';

const server = useServer();

// Values that need percent-encoding: a `/`, `?`, `#`, `+`, `:`, a space and a non-ASCII letter.
const slug = 'équipe/alpha bot';
const fp = 'SHA256:ab+c/d?e#f';
const id = 'wh 1/2';
const name = 'git hub?x';
// Their encoded forms, written out by hand rather than computed by the code under test.
const S = '%C3%A9quipe%2Falpha%20bot';
const F = 'SHA256%3Aab%2Bc%2Fd%3Fe%23f';
const I = 'wh%201%2F2';
const N = 'git%20hub%3Fx';

interface Case {
  call: (client: Client) => PromiseLike<unknown>;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The request target as sent: path and query. */
  target: string;
  /** The JSON body expected on the wire; absent when the operation sends none. */
  sent?: unknown;
  idempotent?: true;
  status: number;
  /** The JSON the server answers; absent for a 204. */
  answer?: unknown;
}

const exposure = {
  catalog: [{ name: 'search' }],
  entries: [{ tool: 'search', mode: 'passthrough' }],
  version: 3,
  stale: [],
};

const cases = {
  listWebhooks: {
    call: (c) => c.webhooks.list(),
    method: 'GET',
    target: '/v1/workspace/webhooks',
    status: 200,
    answer: { endpoints: [endpoint], events: ['message.received'], enabled: true },
  },
  createWebhook: {
    call: (c) => c.webhooks.create({ url: 'https://hooks.example.org/svc' }),
    method: 'POST',
    target: '/v1/workspace/webhooks',
    // What the contract's parse makes of the call's body: the defaults filled in.
    sent: operations.createWebhook.body.parse({ url: 'https://hooks.example.org/svc' }),
    status: 201,
    answer: { endpoint, secret: 'whsec_abc' },
  },
  rotateWebhookSecret: {
    call: (c) => c.webhooks.rotateSecret(id),
    method: 'POST',
    target: `/v1/workspace/webhooks/${I}/secret`,
    status: 200,
    answer: { secret: 'whsec_new', previous_accepted_until: 1_700_086_400_000 },
  },
  setWebhookStatus: {
    call: (c) => c.webhooks.setStatus(id, { status: 'paused' }),
    method: 'PATCH',
    target: `/v1/workspace/webhooks/${I}`,
    sent: { status: 'paused' },
    status: 200,
    answer: { endpoints: [{ ...endpoint, status: 'paused' }] },
  },
  deleteWebhook: {
    call: (c) => c.webhooks.delete(id),
    method: 'DELETE',
    target: `/v1/workspace/webhooks/${I}`,
    status: 204,
  },
  listWebhookDeliveries: {
    call: (c) => c.webhooks.listDeliveries(id, { limit: 25 }),
    method: 'GET',
    target: `/v1/workspace/webhooks/${I}/deliveries?limit=25`,
    status: 200,
    answer: { deliveries: [delivery] },
  },
  listContacts: {
    call: (c) => c.contacts.list(slug, { status: 'pending_in' }),
    method: 'GET',
    target: `/v1/identities/${S}/contacts?status=pending_in`,
    status: 200,
    answer: { contacts: [contact] },
  },
  requestContact: {
    call: (c) => c.contacts.request(slug, { card: 'card-text', note: 'hi' }),
    method: 'POST',
    target: `/v1/identities/${S}/contacts`,
    sent: { card: 'card-text', note: 'hi' },
    status: 201,
    answer: {
      status: 'pending',
      contact: { fingerprint: 'fp_2', endpoint: 'https://p.example', display_name: 'B' },
    },
  },
  updateContact: {
    call: (c) => c.contacts.update(slug, fp, { preset: 'close', permissions: ['files'] }),
    method: 'PATCH',
    target: `/v1/identities/${S}/contacts/${F}`,
    sent: { preset: 'close', permissions: ['files'] },
    status: 200,
    answer: { contact: { ...contact, preset: 'close' } },
  },
  removeContact: {
    call: (c) => c.contacts.remove(slug, fp),
    method: 'DELETE',
    target: `/v1/identities/${S}/contacts/${F}`,
    status: 200,
    answer: { status: 'removed', fingerprint: fp, notified: true },
  },
  approveContact: {
    call: (c) => c.contacts.approve(slug, fp),
    method: 'POST',
    target: `/v1/identities/${S}/contacts/${F}/approve`,
    sent: { preset: 'basic' },
    idempotent: true,
    status: 200,
    answer: { status: 'approved', fingerprint: fp, preset: 'basic', notified: true },
  },
  rejectContact: {
    call: (c) => c.contacts.reject(slug, fp),
    method: 'POST',
    target: `/v1/identities/${S}/contacts/${F}/reject`,
    idempotent: true,
    status: 200,
    answer: { status: 'rejected', fingerprint: fp, notified: false },
  },
  notifyAcceptance: {
    call: (c) => c.contacts.notifyAcceptance(slug, fp),
    method: 'POST',
    target: `/v1/identities/${S}/contacts/${F}/tell-accepted`,
    idempotent: true,
    status: 200,
    answer: { fingerprint: fp, notified: false, refusal: 'peer unreachable' },
  },
  listContactTools: {
    call: (c) => c.contacts.listTools(slug, fp),
    method: 'GET',
    target: `/v1/identities/${S}/contacts/${F}/tools`,
    status: 200,
    answer: { tools: [{ name: 'search', description: 'Search', input_schema: { type: 'object' } }] },
  },
  callContactTool: {
    call: (c) => c.contacts.callTool(slug, fp, { tool: 'search', arguments: { q: 'x' } }),
    method: 'POST',
    target: `/v1/identities/${S}/contacts/${F}/call`,
    sent: { tool: 'search', arguments: { q: 'x' } },
    status: 200,
    answer: { ok: true, result: [1, 'two', null] },
  },
  blockContact: {
    call: (c) => c.contacts.block(slug, fp),
    method: 'POST',
    target: `/v1/identities/${S}/contacts/${F}/block`,
    idempotent: true,
    status: 200,
    answer: { status: 'blocked', fingerprint: fp },
  },
  unblockContact: {
    call: (c) => c.contacts.unblock(slug, fp),
    method: 'POST',
    target: `/v1/identities/${S}/contacts/${F}/unblock`,
    status: 200,
    answer: { status: 'forgotten', fingerprint: fp },
  },
  setPetname: {
    call: (c) => c.contacts.setPetname(slug, fp, { petname: 'Ada L.' }),
    method: 'PATCH',
    target: `/v1/identities/${S}/contacts/${F}/petname`,
    sent: { petname: 'Ada L.' },
    status: 200,
    answer: null,
  },
  refreshContact: {
    call: (c) => c.contacts.refresh(slug, fp),
    method: 'POST',
    target: `/v1/identities/${S}/contacts/${F}/refresh`,
    sent: {},
    status: 200,
    answer: { outcome: 'renewed', why: 'certificate expired' },
  },
  setTrust: {
    call: (c) => c.contacts.setTrust(slug, fp, { trust: 'may_instruct' }),
    method: 'PATCH',
    target: `/v1/identities/${S}/contacts/${F}/trust`,
    sent: { trust: 'may_instruct' },
    status: 200,
    answer: null,
  },
  listIntegrations: {
    call: (c) => c.integrations.list(slug),
    method: 'GET',
    target: `/v1/identities/${S}/integrations`,
    status: 200,
    answer: { integrations: [integration] },
  },
  createIntegration: {
    call: (c) =>
      c.integrations.create(slug, {
        slug: 'github',
        endpoint: 'https://mcp.example.org',
        transport: 'sse',
        auth: { header: 'X-Token', value: 'upstream-token' },
      }),
    method: 'POST',
    target: `/v1/identities/${S}/integrations`,
    sent: {
      slug: 'github',
      endpoint: 'https://mcp.example.org',
      transport: 'sse',
      auth: { header: 'X-Token', value: 'upstream-token' },
    },
    status: 201,
    answer: { integration, tools: 4, trouble: null, authorization_url: null },
  },
  authorizeIntegration: {
    call: (c) => c.integrations.authorize(slug, name, { scope: 'repo' }),
    method: 'POST',
    target: `/v1/identities/${S}/integrations/${N}/authorize`,
    sent: { scope: 'repo' },
    status: 200,
    answer: { authorization_url: 'https://github.example/oauth?state=1' },
  },
  getExposure: {
    call: (c) => c.integrations.getExposure(slug, name),
    method: 'GET',
    target: `/v1/identities/${S}/integrations/${N}/exposure`,
    status: 200,
    answer: exposure,
  },
  setExposure: {
    call: (c) =>
      c.integrations.setExposure(slug, name, { entries: [{ tool: 'search', mode: 'mapped', as: 'find' }] }),
    method: 'POST',
    target: `/v1/identities/${S}/integrations/${N}/exposure`,
    sent: { entries: [{ tool: 'search', mode: 'mapped', as: 'find' }] },
    status: 200,
    answer: { version: 4 },
  },
  deleteIntegration: {
    call: (c) => c.integrations.delete(slug, name),
    method: 'DELETE',
    target: `/v1/identities/${S}/integrations/${N}`,
    status: 200,
    answer: null,
  },
} satisfies Record<OperationId, Case>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function answerWith(seen: Seen[], c: Case) {
  server.use(
    http.all(`${BASE_URL}/*`, async ({ request }) => {
      seen.push(await record(request));
      if (c.answer === undefined) return new HttpResponse(null, { status: c.status });
      return HttpResponse.json(c.answer, { status: c.status, headers: { 'x-request-id': 'req_ok' } });
    }),
  );
}

describe('every operation of the contract', () => {
  it('has a case here, and a resource method', () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(operations).sort());
  });

  const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, validateResponses: true });

  it.each(Object.entries(cases) as [OperationId, Case][])(
    '%s: method, path, query, body, headers, answer',
    async (operationId, c) => {
      const seen: Seen[] = [];
      answerWith(seen, c);
      const data = await c.call(client);

      expect(seen).toHaveLength(1);
      const [request] = seen as [Seen];
      expect(request.method).toBe(c.method);
      expect(request.rawTarget).toBe(c.target);
      expect(request.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
      expect(request.headers.get('accept')).toBe('application/json');
      expect(request.headers.get('x-svc-kit-client')).toBe('0.1.0');
      if (c.sent === undefined) {
        expect(request.body).toBe('');
        expect(request.headers.get('content-type')).toBeNull();
      } else {
        expect(request.headers.get('content-type')).toBe('application/json');
        expect(JSON.parse(request.body)).toEqual(c.sent);
      }
      const key = request.headers.get('idempotency-key');
      if (c.idempotent) expect(key).toMatch(UUID);
      else expect(key).toBeNull();
      // The hand-written flag agrees with the contract's.
      expect(operations[operationId].flags.idempotent).toBe(c.idempotent === true);
      expect(data).toEqual(c.answer);
    },
  );
});

describe('the generic request()', () => {
  const client = new Client({ apiKey: API_KEY, baseUrl: `${BASE_URL}/` });

  it('calls an operation by name with params, query and body', async () => {
    const seen: Seen[] = [];
    answerWith(seen, cases.approveContact);
    const data = await client.request('approveContact', {
      params: { slug, fingerprint: fp },
      body: { preset: 'close' },
    });
    expect(seen[0]?.rawTarget).toBe(`/v1/identities/${S}/contacts/${F}/approve`);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ preset: 'close' });
    expect(data).toEqual(cases.approveContact.answer);
  });

  it('takes a query given as a string, and needs no input for an operation without arguments', async () => {
    const seen: Seen[] = [];
    answerWith(seen, cases.listWebhookDeliveries);
    await client.request('listWebhookDeliveries', { params: { id }, query: { limit: '7' } });
    answerWith(seen, cases.listWebhooks);
    await client.request('listWebhooks');
    expect(seen.map((s) => s.rawTarget)).toEqual([
      `/v1/workspace/webhooks/${I}/deliveries?limit=7`,
      '/v1/workspace/webhooks',
    ]);
  });

  it('keeps a path prefix of the base URL', async () => {
    const seen: Seen[] = [];
    answerWith(seen, cases.listWebhooks);
    const prefixed = new Client({ apiKey: API_KEY, baseUrl: `${BASE_URL}/gateway/svc/` });
    await prefixed.webhooks.list();
    expect(seen[0]?.rawTarget).toBe('/gateway/svc/v1/workspace/webhooks');
  });
});
