import { randomBytes } from 'node:crypto';
import { errorBodySchema, PERMISSIONS, type Permission } from '@svc-kit/contract';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { expect } from 'vitest';
import { type AppOptions, buildApp } from '../../src/app.js';
import type { ServiceContext } from '../../src/context.js';
import { mintApiKey } from '../../src/domain/api-key.js';
import { newId } from '../../src/domain/ids.js';
import { hashPassword } from '../../src/domain/password.js';
import { generateTotpSecret } from '../../src/domain/totp.js';
import type { ResolveHost } from '../../src/domain/url-policy.js';
import { WorkspaceRequests } from '../../src/domain/workspace-requests.js';
import { openSession } from '../../src/features/accounts/session.js';
import { loggerOptions } from '../../src/http/logger.js';
import { SESSION_COOKIE } from '../../src/http/principal.js';
import { PublicAddress } from '../../src/public-address.js';
import type { OpenedStore } from '../../src/store/open.js';
import { insertApiKey } from '../../src/store/queries/api-keys.js';
import { insertMember } from '../../src/store/queries/members.js';
import { insertWorkspace } from '../../src/store/queries/workspaces.js';
import { createSecretBox, type SecretBox } from '../../src/store/secret-box.js';
import { lineSink } from './line-sink.js';

/**
 * The service context a test builds on a store: a fresh at-rest key, the test DNS, a public address
 * settled once the service listens, the real clock, no localhost receivers and the service's default
 * request budget per workspace, unless `overrides` says.
 */
export function testContext(store: OpenedStore, overrides: Partial<ServiceContext> = {}): ServiceContext {
  return {
    db: store.db,
    secretBox: overrides.secretBox ?? createSecretBox(randomBytes(32)),
    resolveHost: testResolve,
    allowLocalhostWebhooks: false,
    publicAddress: new PublicAddress(),
    now: () => Date.now(),
    requests: new WorkspaceRequests(),
    ...overrides,
  };
}

/** What test hostnames resolve to: DNS is the one outside system the URL policy talks to. */
export const TEST_DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.215.14'],
  'v6.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'mixed.example.com': ['10.0.0.1', '93.184.215.14'],
  'internal.example.com': ['10.0.0.5'],
  'private172.example.com': ['172.16.4.4'],
  'private192.example.com': ['192.168.1.10'],
  'loopback.example.com': ['127.0.0.1'],
  'linklocal.example.com': ['169.254.169.254'],
  'cgnat.example.com': ['100.64.1.1'],
  'ula.example.com': ['fd00::1'],
  'v6loopback.example.com': ['::1'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'unspecified.example.com': ['0.0.0.0'],
  'allprivate.example.com': ['10.0.0.1', '192.168.0.1', 'fe80::1'],
};

/** Every name under this one resolves as it does: tests that need many hosts name them there. */
const WILDCARD_DNS = 'hooks.example.com';

export async function testResolve(hostname: string): Promise<string[]> {
  const addresses =
    TEST_DNS[hostname] ?? (hostname.endsWith(`.${WILDCARD_DNS}`) ? TEST_DNS[WILDCARD_DNS] : undefined);
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses;
}

export interface TestService {
  ctx: ServiceContext;
  app: FastifyInstance;
  baseUrl: string;
  /** Every log line written so far, as raw text. */
  logs(): string;
  close(): Promise<void>;
}

/** A real server on 127.0.0.1:<random port>, logging into memory so tests can read the lines. */
export async function startTestService(
  store: OpenedStore,
  options: {
    allowLocalhostWebhooks?: boolean;
    extra?: Omit<AppOptions, 'logger'>;
    now?: () => number;
    /** The at-rest key of another service on the same store (a restart, or instances sharing a database). */
    secretBox?: SecretBox;
    /** How names resolve: the test DNS table unless told (the real resolver, pointed at a test's server). */
    resolveHost?: ResolveHost;
    /** Each workspace's request budget: the service's default unless told; `undefined` lifts it. */
    requests?: WorkspaceRequests | undefined;
  } = {},
): Promise<TestService> {
  const { sink, lines } = lineSink();
  const logger = pino(loggerOptions('debug'), sink);
  const ctx = testContext(store, {
    ...(options.secretBox ? { secretBox: options.secretBox } : {}),
    allowLocalhostWebhooks: options.allowLocalhostWebhooks ?? false,
    ...(options.now ? { now: options.now } : {}),
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    ...('requests' in options ? { requests: options.requests } : {}),
    passwordCost: 'test',
  });
  const app = await buildApp(ctx, { logger, ...options.extra });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  ctx.publicAddress.settle(baseUrl);
  return { ctx, app, baseUrl, logs: () => lines.join(''), close: () => app.close() };
}

export interface Tenant {
  workspaceId: string;
  memberId: string;
  email: string;
  password: string;
  totpSecret: string | undefined;
  /** An API key carrying `scopes` (default: every permission of the member). */
  key: string;
  /** Cookie header values. */
  steppedUpSession: string;
  plainSession: string;
}

export interface TenantOptions {
  permissions?: readonly Permission[];
  scopes?: readonly string[];
  mfa?: boolean;
  suspended?: boolean;
  deletionHold?: boolean;
  webhooksEnabled?: boolean;
  /**
   * The workspace's id, a new one unless told: `SANDBOX_WORKSPACE_ID` makes it the seeded sandbox's, which
   * the delivery pace does not slow (for a burst whose test is not about the pace).
   */
  workspaceId?: string;
}

/** One password for every test member: scrypt is slow on purpose, and tests create many members. */
export const TEST_PASSWORD = 'correct horse battery staple';
let testPasswordHash: Promise<string> | undefined;

/** A workspace with one member, a key and two sessions, written straight into the store. */
export async function createTenant(ctx: ServiceContext, options: TenantOptions = {}): Promise<Tenant> {
  const now = ctx.now();
  const workspaceId = options.workspaceId ?? newId('ws');
  const memberId = newId('mem');
  const email = `${memberId}@test.example`;
  const password = TEST_PASSWORD;
  testPasswordHash ??= hashPassword(TEST_PASSWORD, 'test');
  const permissions = [...(options.permissions ?? PERMISSIONS)];
  const mfa = options.mfa ?? true;
  const totpSecret = mfa ? generateTotpSecret() : undefined;
  await insertWorkspace(ctx.db, {
    id: workspaceId,
    name: 'test',
    webhooks_enabled: options.webhooksEnabled ?? false,
    suspended: options.suspended ?? false,
    deletion_hold: options.deletionHold ?? false,
    created_at: now,
  });
  await insertMember(ctx.db, {
    id: memberId,
    workspace_id: workspaceId,
    email,
    password_hash: await testPasswordHash,
    permissions,
    mfa_secret_enc: totpSecret ? ctx.secretBox.seal(totpSecret, memberId) : null,
    created_at: now,
  });
  const key = mintApiKey();
  await insertApiKey(ctx.db, {
    id: key.id,
    workspace_id: workspaceId,
    member_id: memberId,
    name: 'test',
    secret_hash: key.secretHash,
    scopes: [...(options.scopes ?? permissions)],
    created_at: now,
    revoked_at: null,
  });
  const steppedUp = await openSession(ctx, memberId, true);
  const plain = await openSession(ctx, memberId, false);
  return {
    workspaceId,
    memberId,
    email,
    password,
    totpSecret,
    key: key.token,
    steppedUpSession: `${SESSION_COOKIE}=${steppedUp.token}`,
    plainSession: `${SESSION_COOKIE}=${plain.token}`,
  };
}

export type Auth = { key: string } | { cookie: string } | undefined;

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, `undefined` when there is none. */
  body: unknown;
}

/**
 * One HTTP call over the loopback socket. A cookie call is made as the portal's own page makes it, with
 * the service's `Origin`, unless the test names `origin` or `sec-fetch-site` itself or asks for a call
 * that shows no origin at all (`showOrigin: false`).
 */
export async function call(
  service: { baseUrl: string },
  method: string,
  path: string,
  options: {
    auth?: Auth;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    showOrigin?: boolean;
  } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth && 'key' in options.auth) headers.authorization = `Bearer ${options.auth.key}`;
  if (options.auth && 'cookie' in options.auth) {
    headers.cookie = options.auth.cookie;
    const named = Object.keys(headers).some((h) => ['origin', 'sec-fetch-site'].includes(h.toLowerCase()));
    if (!named && options.showOrigin !== false) headers.origin = new URL(service.baseUrl).origin;
  }
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(new URL(path, service.baseUrl), { method, headers, body: body ?? null });
  const text = await response.text();
  let parsed: unknown;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** A refusal: the status, the code, and a body that matches the contract's error body exactly. */
export function expectRefusal(result: CallResult, status: number, code: string): void {
  expect({ status: result.status, body: result.body }).toMatchObject({ status, body: { error: { code } } });
  const parsed = errorBodySchema.parse(result.body);
  expect(parsed.error.request_id).toBe(result.headers.get('x-request-id'));
  expect(parsed.error.message.length).toBeGreaterThan(0);
}
