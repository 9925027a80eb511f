import { Client } from '@svc-kit/client';
import { errorBodySchema, expandPath, type OperationId, operations } from '@svc-kit/contract';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import {
  createSandbox,
  createSandboxCard,
  SANDBOX_API_KEY,
  SANDBOX_SESSION,
  type Sandbox,
  type SandboxData,
  type SandboxOptions,
  SESSION_COOKIE,
  sandboxFingerprint,
} from '../src/index.js';

export const BASE_URL = 'https://api.example.test';
export const KEY_HEADERS = { authorization: `Bearer ${SANDBOX_API_KEY}` };
export const SESSION_HEADERS = { cookie: `${SESSION_COOKIE}=${SANDBOX_SESSION}` };

/** A sandbox served by msw for the whole test file, reset after every test. */
export function useSandbox(options: Omit<SandboxOptions, 'baseUrl'> = {}): Sandbox {
  const sandbox = createSandbox({ baseUrl: BASE_URL, ...options });
  const server = setupServer(...sandbox.handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => sandbox.reset());
  afterAll(() => server.close());
  return sandbox;
}

/** The typed client of the repo, without retries so that every refusal reaches the test. */
export function apiKeyClient(apiKey = SANDBOX_API_KEY): Client {
  return new Client({ apiKey, baseUrl: BASE_URL, maxRetries: 0, validateResponses: true });
}

/** A session client: Node's fetch has no cookie jar, so the cookie rides in the client's headers. */
export function sessionClient(token = SANDBOX_SESSION): Client {
  return new Client({
    session: true,
    baseUrl: BASE_URL,
    maxRetries: 0,
    validateResponses: true,
    // The origin a browser sends: a session write that cannot show it is refused, as by the service.
    headers: { cookie: `${SESSION_COOKIE}=${token}`, origin: new URL(BASE_URL).origin },
  });
}

export interface RawCall {
  params?: Record<string, string>;
  query?: Record<string, string> | string;
  /** A value sent as JSON, or a string sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Which credential rides along. Default: the sandbox API key. */
  auth?: 'key' | 'session' | 'none';
}

/** A request built by hand from the contract's table, for what the typed client refuses to send. */
export function raw(operationId: OperationId, call: RawCall = {}): Promise<Response> {
  const op = operations[operationId];
  const query =
    call.query === undefined
      ? ''
      : `?${typeof call.query === 'string' ? call.query : new URLSearchParams(call.query).toString()}`;
  const auth = call.auth ?? 'key';
  const headers: Record<string, string> = {
    ...(auth === 'key' && KEY_HEADERS),
    ...(auth === 'session' && SESSION_HEADERS),
    ...call.headers,
  };
  // A cookie call shows the sandbox's origin, as a browser's would, unless the test says where it is from.
  if (
    headers.cookie !== undefined &&
    headers.origin === undefined &&
    headers['sec-fetch-site'] === undefined
  ) {
    headers.origin = new URL(BASE_URL).origin;
  }
  let body: string | undefined;
  if (call.body !== undefined) {
    body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
    headers['content-type'] ??= 'application/json';
  }
  return fetch(`${BASE_URL}${expandPath(op.path, call.params)}${query}`, {
    method: op.method,
    headers,
    ...(body !== undefined && { body }),
  });
}

/** Asserts the spec's error body and the request id in both places; returns the error object. */
export async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = errorBodySchema.parse(await response.json());
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toMatch(/^req_[0-9a-f]{24}$/);
  expect(response.headers.get('x-request-id')).toBe(body.error.request_id);
  return body.error;
}

export const SLUG = 'ops';
export const ALICE = sandboxFingerprint('alice');
export const BOB = sandboxFingerprint('bob');
export const CAROL = sandboxFingerprint('carol');
export const DAVE = sandboxFingerprint('dave');
export const ERIN = sandboxFingerprint('erin');

export const newcomerCard = createSandboxCard({
  display_name: 'Frank',
  endpoint: 'https://frank.example.org/agent',
});

/** One seed from which every operation has a happy path. */
export const FIXTURE: SandboxData = {
  webhooks: [
    { id: 'whk_seeded', url: 'https://hooks.example.org/svc', created_at: 1_000, updated_at: 1_000 },
  ],
  deliveries: [
    { id: 'dlv_1', endpoint_id: 'whk_seeded', created_at: 2_000 },
    { id: 'dlv_2', endpoint_id: 'whk_seeded', created_at: 3_000, status: 'failed', http_status: 500 },
  ],
  identities: {
    [SLUG]: {
      contacts: [
        {
          fingerprint: ALICE,
          display_name: 'Alice',
          tools: [
            {
              name: 'add',
              description: 'adds two numbers',
              result: (args) => Number(args.a) + Number(args.b),
            },
          ],
        },
        { fingerprint: BOB, display_name: 'Bob', status: 'pending_in' },
        { fingerprint: CAROL, display_name: 'Carol', status: 'pending_in' },
        { fingerprint: DAVE, display_name: 'Dave', status: 'blocked', declined: true },
        { fingerprint: ERIN, display_name: 'Erin', status: 'active', reachable: false },
      ],
      integrations: [
        {
          slug: 'notes',
          endpoint: 'https://notes.example.org/mcp',
          tools: [{ name: 'search' }, { name: 'fetch' }],
        },
      ],
    },
  },
  catalogue: [
    {
      slug: 'weather',
      endpoint: 'https://weather.example.org/mcp',
      tools: [{ name: 'forecast' }, { name: 'alerts' }],
    },
    { slug: 'calendar', endpoint: 'https://calendar.example.org/mcp', oauth: true },
  ],
};
