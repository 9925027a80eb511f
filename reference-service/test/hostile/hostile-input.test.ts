import {
  ERROR_CODES,
  errorBodySchema,
  type Operation,
  operationList,
  TRANSPORT_REFUSALS,
} from '@svc-kit/contract';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession } from '../../src/features/accounts/session.js';
import { DEFAULT_INTEGRATION_SETTINGS } from '../../src/features/integrations/settings.js';
import { SESSION_COOKIE } from '../../src/http/principal.js';
import { ensureIdentityKey } from '../../src/peer/own-identity.js';
import { peerBodies } from '../../src/peer/protocol.js';
import { Relay } from '../../src/relay/relay.js';
import { RELAY_TIMINGS } from '../../src/relay/types.js';
import { BACKENDS } from '../support/backends.js';
import { databaseFingerprint, type Written } from '../support/db-dump.js';
import { call, createTenant, startTestService, type Tenant, type TestService } from '../support/harness.js';
import { addIdentity } from '../support/identity.js';
import { useStore } from '../support/service-lifecycle.js';

/**
 * The hostile-input suite: every operation and every route of the service's own (sessions,
 * keys, the OAuth callback, the sandbox, the peer protocol) is called with random and adversarial path
 * values, queries, bodies, headers and credentials, over HTTP, on both backends. For every answer:
 * - never a 5xx;
 * - every refusal is the error body (`{error:{code,message,request_id}}`), its request id the one in
 *   `x-request-id`, its code one of the registry with that code's status, and the status one the route
 *   documents (the operation's `errors` in the contract, plus the transport refusals);
 * - a refused call changes nothing in the database (a fingerprint of every table before and after).
 * numRuns keeps each backend well under a minute on a loaded machine.
 */
const RUNS_PER_ROUTE = 25;

/**
 * Tables a refused call may write by design (for instance counters of failed logins or step-up codes,
 * which must survive the refusal to limit guessing). Everything else must stay exactly as it was.
 */
const WRITTEN_BY_REFUSALS: readonly Written[] = [
  // The guessing limits' buckets (src/domain/sign-in-limits.ts): a refused key or password spends one.
  // The contacts' outbound budgets in the same table must not move.
  { table: 'outbound_budgets', where: "bucket LIKE 'guess:%'" },
  // A final refusal of an idempotent call is the key's first answer, kept to be replayed (spec part 4).
  { table: 'idempotency_keys', where: 'response_status >= 400' },
];

interface Target {
  name: string;
  method: string;
  /** Path template with `{param}` placeholders. */
  path: string;
  /** Well-formed values for each parameter, so that some calls get past routing to the body checks. */
  valid: Record<string, string[]>;
  /** Field names the route reads from its body (random values are put in them, and unknown ones beside). */
  fields: string[];
  /** Statuses this route documents for a refusal. */
  documented: ReadonlySet<number>;
  /** Peer routes answer the peer protocol's codes (PEER-PROTOCOL.md), not the /v1 registry. */
  peer?: boolean;
  /** Ends the session it is called with (logout): called with a fresh session of the tenant, not theirs. */
  spendsSession?: boolean;
}

// --- generators ---------------------------------------------------------------------------------------

const percentEncode = (bytes: Uint8Array) =>
  [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

/** Text as a path segment or query part: its UTF-8 bytes (lone surrogates become U+FFFD) percent-encoded. */
const encodeText = (text: string) => percentEncode(Buffer.from(text, 'utf8'));

const ADVERSARIAL_SEGMENTS = [
  '%00',
  'a%00b',
  '%ff',
  '%fe%ff',
  '%ed%a0%80', // a lone surrogate, as UTF-8 would encode it (invalid)
  '%c0%80', // an over-long NUL
  '%e2%82', // a cut-off sequence
  '%',
  '%zz',
  'x'.repeat(101),
  'x'.repeat(3000),
  '%2e%2e',
  '%2f',
  '%20',
  'sha256:',
  `sha256:${'0'.repeat(64)}`,
  'NULL',
  "'; DROP TABLE workspaces; --",
];

const hostileText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\uffff', '\u202e', ' ', '', 'x'.repeat(5000)),
);

const segment = (valid: string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...(valid.length > 0 ? valid : ['x'])), weight: 3 },
    { arbitrary: fc.constantFrom(...ADVERSARIAL_SEGMENTS), weight: 3 },
    { arbitrary: fc.uint8Array({ maxLength: 24 }).map(percentEncode), weight: 1 },
    { arbitrary: hostileText.map(encodeText), weight: 2 },
  );

const query = fc.oneof(
  fc.constant(''),
  fc
    .array(
      fc.tuple(
        fc.oneof(
          // `window` and the log's filters are the webhook pages' (activity chart, listWebhookDeliveries).
          fc.constantFrom(
            'limit',
            'state',
            'code',
            'error',
            'cursor',
            'window',
            'status',
            'event_type',
            'event_id',
          ),
          hostileText.map(encodeText),
        ),
        fc.oneof(fc.constantFrom(...ADVERSARIAL_SEGMENTS), hostileText.map(encodeText), fc.constant('5')),
      ),
      { maxLength: 3 },
    )
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`)),
);

const wrongTyped = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  hostileText,
  fc.constantFrom(null, true, -1, 1e308, 2 ** 53 + 1, [], {}, ['\u0000'], { '\u0000': 1 }),
);

const objectBody = (fields: string[]) =>
  fc
    .tuple(
      fields.length > 0
        ? fc.dictionary(fc.constantFrom(...fields), wrongTyped, { maxKeys: fields.length })
        : fc.constant({}),
      fc.dictionary(fc.oneof(hostileText, fc.constantFrom('__proto__', 'constructor')), wrongTyped, {
        maxKeys: 2,
      }),
    )
    .map(([known, unknown]) => JSON.stringify({ ...unknown, ...known }));

const deepJson = fc
  .tuple(fc.integer({ min: 60, max: 6000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

/** Stands for a body over the 1 MiB limit; expanded when sent, so that a counterexample stays readable. */
const HUGE = '<a JSON body of 1.1 MB>';
const HUGE_BODY = JSON.stringify({ url: 'x'.repeat(1_100_000) });

/** What goes in the body: JSON of the route's fields, any JSON, broken JSON, raw bytes, deep or huge. */
const body = (fields: string[]) =>
  fc.oneof(
    { arbitrary: objectBody(fields), weight: 5 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)), weight: 2 },
    { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
    { arbitrary: fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
    { arbitrary: deepJson, weight: 1 },
    { arbitrary: fc.constantFrom(HUGE, '', '{}', 'null', '{"a":1', '\u0000'), weight: 1 },
  );

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  undefined,
);

type Credential =
  | 'none'
  | 'key'
  | 'session'
  | 'session-cross-site'
  | 'bad-bearer'
  | 'not-bearer'
  | 'bad-cookie'
  | 'random-bearer';

const credential = fc.constantFrom<Credential>(
  'none',
  'key',
  'key',
  'session',
  'session',
  'session-cross-site',
  'bad-bearer',
  'not-bearer',
  'bad-cookie',
  'random-bearer',
);

/** Printable ASCII only: the HTTP client itself refuses control characters in header values. */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

const extraHeaders = fc.dictionary(
  fc.constantFrom(
    'idempotency-key',
    'origin',
    'sec-fetch-site',
    'referer',
    'x-forwarded-host',
    'x-forwarded-proto',
    'forwarded',
    'svc-peer-timestamp',
    'svc-peer-nonce',
    'svc-peer-signature',
    'accept',
    'x-request-id',
  ),
  headerText,
  { maxKeys: 3 },
);

// --- the suite ----------------------------------------------------------------------------------------

function expandPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => values[name] ?? 'x');
}

function operationTarget(op: Operation, valid: Record<string, string[]>): Target {
  const shape = (schema: unknown) =>
    schema && typeof schema === 'object' && 'shape' in schema
      ? Object.keys((schema as { shape: object }).shape)
      : [];
  return {
    name: op.operationId,
    method: op.method,
    path: op.path,
    valid,
    fields: shape(op.body),
    documented: new Set<number>([...op.errors, ...TRANSPORT_REFUSALS]),
  };
}

/** The service's own routes and what each documents (src/features/accounts/README.md, PEER-PROTOCOL.md). */
function ownTargets(valid: Record<string, string[]>): Target[] {
  const statuses = (...list: number[]) => new Set<number>([...list, ...TRANSPORT_REFUSALS]);
  const peer = Object.keys(peerBodies).map(
    (verb): Target => ({
      name: `peer ${verb}`,
      method: 'POST',
      path: `/peer/v1/identities/{fingerprint}/${verb}`,
      valid,
      fields: ['card', 'note', 'tool', 'arguments', 'reason'],
      // 429: the budgets of a client address and of an identity (src/domain/door-limits.ts).
      documented: statuses(400, 401, 403, 404, 409, 429),
      peer: true,
    }),
  );
  return [
    {
      name: 'login',
      method: 'POST',
      path: '/v1/sessions',
      valid,
      fields: ['email', 'password'],
      documented: statuses(400, 401, 403, 429),
    },
    {
      name: 'step-up',
      method: 'POST',
      path: '/v1/sessions/step-up',
      valid,
      fields: ['code'],
      documented: statuses(400, 401, 403, 429),
    },
    {
      name: 'mint key',
      method: 'POST',
      path: '/v1/workspace/keys',
      valid,
      fields: ['name', 'scopes'],
      documented: statuses(400, 401, 403),
    },
    {
      name: 'revoke key',
      method: 'DELETE',
      path: '/v1/workspace/keys/{id}',
      valid,
      fields: [],
      documented: statuses(400, 401, 403, 404),
    },
    // The portal's account routes (src/features/accounts/README.md, "The portal's accounts").
    {
      name: 'sign-up',
      method: 'POST',
      path: '/v1/accounts',
      valid,
      fields: ['email', 'password', 'workspace_name'],
      documented: statuses(400, 403, 409),
    },
    {
      name: 'session view',
      method: 'GET',
      path: '/v1/session',
      valid,
      fields: [],
      documented: statuses(400, 401, 403),
    },
    {
      // Answers 200 with or without a session; a credential that fails is no session, never a 401.
      name: 'session state',
      method: 'GET',
      path: '/v1/session/state',
      valid,
      fields: [],
      documented: statuses(400),
    },
    {
      name: 'logout',
      method: 'DELETE',
      path: '/v1/session',
      valid,
      fields: [],
      documented: statuses(400, 401, 403),
      spendsSession: true,
    },
    {
      name: 'mfa enrolment',
      method: 'POST',
      path: '/v1/session/mfa',
      valid,
      fields: [],
      documented: statuses(400, 401, 403, 409),
    },
    {
      name: 'mfa confirmation',
      method: 'POST',
      path: '/v1/session/mfa/confirm',
      valid,
      fields: ['code'],
      documented: statuses(400, 401, 403, 409),
    },
    {
      name: 'list keys',
      method: 'GET',
      path: '/v1/workspace/keys',
      valid,
      fields: [],
      documented: statuses(400, 401, 403),
    },
    {
      name: 'list members',
      method: 'GET',
      path: '/v1/workspace/members',
      valid,
      fields: [],
      documented: statuses(400, 401, 403),
    },
    {
      name: 'invite member',
      method: 'POST',
      path: '/v1/workspace/members',
      valid,
      fields: ['email', 'permissions'],
      documented: statuses(400, 401, 403, 409),
    },
    {
      name: 'remove member',
      method: 'DELETE',
      path: '/v1/workspace/members/{member}',
      valid,
      fields: [],
      documented: statuses(400, 401, 403, 404),
    },
    {
      name: 'webhooks switch',
      method: 'PATCH',
      path: '/v1/workspace',
      valid,
      fields: ['webhooks_enabled'],
      documented: statuses(400, 401, 403),
    },
    {
      name: 'accept invite',
      method: 'POST',
      path: '/v1/invites/accept',
      valid,
      fields: ['token', 'password'],
      documented: statuses(400, 403, 404),
    },
    {
      name: 'oauth callback',
      method: 'GET',
      path: '/oauth/integrations/callback',
      valid,
      fields: [],
      documented: statuses(400, 403, 404, 429, 502),
    },
    {
      name: 'sandbox events',
      method: 'POST',
      path: '/sandbox/events',
      valid,
      fields: ['type', 'identity', 'data', 'endpoint'],
      documented: statuses(400, 401, 403, 404, 429),
    },
    {
      name: 'relay secret',
      method: 'GET',
      path: '/relay/v1/secret',
      valid,
      fields: [],
      documented: statuses(400, 401, 403),
    },
    {
      name: 'relay answer',
      method: 'POST',
      path: '/relay/v1/listeners/{id}/answers',
      valid,
      fields: ['stream_token', 'delivery_id', 'status', 'latency_ms', 'excerpt', 'failure'],
      documented: statuses(400, 401, 403, 404),
    },
    {
      name: 'relay close',
      method: 'DELETE',
      path: '/relay/v1/listeners/{id}',
      valid,
      fields: [],
      documented: statuses(400, 401, 403, 404),
    },
    {
      name: 'openapi',
      method: 'GET',
      path: '/v1/openapi.json',
      valid,
      fields: [],
      documented: statuses(400),
    },
    {
      name: 'attempt request',
      method: 'GET',
      path: '/v1/workspace/webhooks/{id}/deliveries/{delivery}/request',
      valid,
      fields: [],
      documented: statuses(400, 401, 403, 404),
    },
    {
      name: 'endpoint activity',
      method: 'GET',
      path: '/v1/workspace/webhooks/{id}/activity',
      valid,
      fields: [],
      // 429: the workspace's chart reads (features/webhooks/activity.ts).
      documented: statuses(400, 401, 403, 404, 429),
    },
    {
      name: 'event with its attempts',
      method: 'GET',
      path: '/v1/workspace/events/{event}',
      valid,
      fields: [],
      // 429: the workspace's event page reads (features/webhooks/portal-routes.ts).
      documented: statuses(400, 401, 403, 404, 429),
    },
    {
      name: 'peer card',
      method: 'GET',
      path: '/peer/v1/identities/{fingerprint}/card',
      valid,
      fields: [],
      documented: statuses(400, 404, 429),
      peer: true,
    },
    ...peer,
  ];
}

describe.each(BACKENDS)('hostile input over HTTP on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let relay: Relay;
  let tenant: Tenant;
  let valid: Record<string, string[]>;
  let last: string;
  /** Calls the HTTP client sent, and refusals per status (the suite checks it really reached the service). */
  let sent = 0;
  const unsent = 0;
  const statusesSeen = new Map<number, number>();

  beforeAll(async () => {
    relay = new Relay(store.db, pino({ level: 'silent' }), {
      ...RELAY_TIMINGS,
      soleInstance: backend.name === 'pglite',
      now: () => Date.now(),
    });
    await relay.start();
    service = await startTestService(store, {
      extra: {
        relay,
        sandboxRoutes: true,
        signUpOpen: true,
        integrations: {
          ...DEFAULT_INTEGRATION_SETTINGS,
          allowLocalhost: false,
          timeoutMs: 500,
          catalogue: {},
        },
      },
      // Over a thousand calls of one workspace in seconds: the request budget would answer a third of them
      // 429 (documented everywhere) and hide the refusals this suite is about.
      requests: undefined,
    });
    tenant = await createTenant(service.ctx);
    const slug = 'hostile-identity';
    const identityId = await addIdentity(store.db, tenant.workspaceId, slug);
    const key = await ensureIdentityKey(store.db, service.ctx.secretBox, identityId, Date.now());
    const created = await call(service, 'POST', '/v1/workspace/webhooks', {
      auth: { cookie: tenant.steppedUpSession },
      headers: { origin: service.baseUrl },
      body: { url: 'https://hooks.example.com/hostile' },
    });
    expect(created.status).toBe(201);
    const endpointId = (created.body as { endpoint: { id: string } }).endpoint.id;
    valid = {
      id: [endpointId, 'wh_0000000000000000'],
      slug: [slug, 'nobody'],
      fingerprint: [key.fingerprint, `sha256:${'a'.repeat(64)}`],
      name: ['none', 'hostile'],
      member: [tenant.memberId, 'mem_0000000000000000'],
      delivery: ['dlv_000000000000000000000000'],
      event: ['evt_000000000000000000000000'],
    };
    last = await databaseFingerprint(store.db, WRITTEN_BY_REFUSALS);
  });
  afterAll(async () => {
    await service?.close();
  });

  function headersFor(who: Credential, extra: Record<string, string>, type: string | undefined) {
    const headers: Record<string, string> = { ...extra };
    if (type !== undefined) headers['content-type'] = type;
    const origin = new URL(service.baseUrl).origin;
    switch (who) {
      case 'key':
        headers.authorization = `Bearer ${tenant.key}`;
        break;
      case 'session':
        headers.cookie = tenant.steppedUpSession;
        headers.origin = origin;
        break;
      case 'session-cross-site':
        headers.cookie = tenant.steppedUpSession;
        headers.origin = 'https://evil.example';
        break;
      case 'bad-bearer':
        headers.authorization = `Bearer ${tenant.key.slice(0, -2)}xx`;
        break;
      case 'not-bearer':
        headers.authorization = `Basic ${Buffer.from('a:b').toString('base64')}`;
        break;
      case 'bad-cookie':
        headers.cookie = '__Host-svc_session=forged; other=1';
        break;
      case 'random-bearer':
        headers.authorization = `Bearer svc_${'z'.repeat(20)}_${'%00'}`;
        break;
      case 'none':
        break;
    }
    return headers;
  }

  async function attack(target: Target) {
    // One spare session at a time, a new one only once a logout ended it: a refused logout leaves its
    // spare live, and spares piling up past the cap of sessions per member would end the tenant's own.
    let spare: string | undefined;
    const names = [...target.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
    const params = fc.record(Object.fromEntries(names.map((name) => [name, segment(valid[name] ?? [])])));
    await fc.assert(
      fc.asyncProperty(
        params,
        query,
        body(target.fields),
        credential,
        extraHeaders,
        contentType,
        async (values, search, payload, who, extra, type) => {
          const path = `${expandPath(target.path, values as Record<string, string>)}${search}`;
          const headers = headersFor(who, extra, type);
          if (target.spendsSession && headers.cookie === tenant.steppedUpSession) {
            spare ??= `${SESSION_COOKIE}=${(await openSession(service.ctx, tenant.memberId, true)).token}`;
            headers.cookie = spare;
            last = await databaseFingerprint(store.db, WRITTEN_BY_REFUSALS);
          }
          const withBody = target.method !== 'GET' && target.method !== 'HEAD';
          let response: Response;
          try {
            response = await fetch(`${service.baseUrl}${path}`, {
              method: target.method,
              headers,
              redirect: 'manual',
              ...(withBody ? { body: payload === HUGE ? HUGE_BODY : payload } : {}),
            });
          } catch (error) {
            // The client refused to send it (a header or URL it will not write): nothing reached us.
            if (
              error instanceof TypeError &&
              !String((error as { cause?: unknown }).cause ?? '').includes('ECONN')
            ) {
              return;
            }
            throw error;
          }
          const text = await response.text();
          const status = response.status;
          if (headers.cookie === spare && status < 300) spare = undefined;
          sent++;
          statusesSeen.set(status, (statusesSeen.get(status) ?? 0) + 1);
          const where = `${target.name} ${target.method} ${path.slice(0, 200)} (${who}) → ${status} ${text.slice(0, 300)}`;
          expect(status, where).toBeLessThan(500);
          // Whatever answers, refusals made before routing included: nothing sniffed, nothing run.
          expect(response.headers.get('x-content-type-options'), where).toBe('nosniff');
          expect(response.headers.get('content-security-policy'), where).toMatch(/default-src 'none'/);
          const now = await databaseFingerprint(store.db, WRITTEN_BY_REFUSALS);
          if (status >= 400) {
            expect(target.documented.has(status), where).toBe(true);
            const parsed = errorBodySchema.safeParse(JSON.parse(text));
            expect(parsed.success, where).toBe(true);
            const error = parsed.data?.error;
            expect(error?.request_id, where).toBe(response.headers.get('x-request-id'));
            expect(error?.request_id, where).toMatch(/^req_[0-9a-f]{24}$/);
            if (!target.peer) {
              const code = error?.code ?? '';
              expect(Object.hasOwn(ERROR_CODES, code), where).toBe(true);
              expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status, where).toBe(status);
            }
            // A refusal leaves the database exactly as it was.
            expect(now.split('\n'), where).toEqual(last.split('\n'));
          }
          last = now;
        },
      ),
      { numRuns: RUNS_PER_ROUTE },
    );
  }

  it('every operation of the contract', async () => {
    expect(operationList).toHaveLength(26);
    for (const op of operationList) await attack(operationTarget(op, valid));
  }, 180_000);

  it('the service’s own routes: sessions, accounts, keys, OAuth callback, sandbox, peer protocol', async () => {
    for (const target of ownTargets(valid)) await attack(target);
  }, 180_000);

  it('reached the service with nearly every call, and drew refusals of many kinds', () => {
    expect(sent).toBeGreaterThan(20 * unsent);
    expect(sent).toBeGreaterThan(RUNS_PER_ROUTE * 40);
    for (const status of [400, 401, 403, 404]) expect(statusesSeen.get(status) ?? 0).toBeGreaterThan(0);
    if (process.env.HOSTILE_STATS)
      console.log(backend.name, { sent, unsent, statuses: Object.fromEntries(statusesSeen) });
  });
});
