import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { base32Decode, currentTotp } from '../../src/domain/totp.js';
import { SESSION_COOKIE } from '../../src/http/principal.js';
import type { Backend } from '../support/backends.js';
import { type RawAnswer, rawCall } from '../support/raw-call.js';
import {
  type LifecycleOptions,
  type ServiceUnderTest,
  serviceForTests,
} from '../support/service-lifecycle.js';

/** A password every sign-up of the tests may use (the policy: 12 characters, not the e-mail). */
export const PASSWORD = 'a long pass phrase for tests';

export const uniqueEmail = (prefix = 'person') =>
  `${prefix}-${randomBytes(5).toString('hex')}@signup.example`;

/** The `__Host-svc_session=<token>` pair a Set-Cookie header hands out, ready for a Cookie header. */
export function cookieOf(answer: RawAnswer): string {
  const header = answer.headers['set-cookie'];
  const line = (Array.isArray(header) ? header : [header ?? '']).find((value) =>
    value.startsWith(`${SESSION_COOKIE}=`),
  );
  expect(line, 'a session cookie').toBeDefined();
  return line!.split(';')[0]!;
}

/**
 * A call as the portal's page makes it: the service's own Origin, the cookie when given, and a chosen
 * client address on the loopback network (the guessing limits count per address).
 */
export function portalCall(
  baseUrl: string,
  method: string,
  path: string,
  options: { cookie?: string; body?: unknown; from?: string; origin?: string | null } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  const origin = options.origin === undefined ? new URL(baseUrl).origin : options.origin;
  if (origin !== null) headers.origin = origin;
  return rawCall(baseUrl, method, path, {
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.from ? { localAddress: options.from } : {}),
  });
}

/** A fresh client address per call site, so that the sign-up budget of one test does not leak into another. */
let nextAddress = 1;
export function freshAddress(): string {
  nextAddress++;
  return `127.0.${100 + Math.floor(nextAddress / 250)}.${(nextAddress % 250) + 1}`;
}

export function expectError(answer: RawAnswer, status: number, code: string): void {
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status, body: { error: { code } } });
  const error = (answer.body as { error: { request_id: string } }).error;
  expect(error.request_id).toBe(answer.headers['x-request-id']);
}

/** Enrols MFA for the session's member: the secret from the answer, the first code computed here. */
export async function enrolMfa(baseUrl: string, cookie: string, email: string, clock: { at: number }) {
  const call = (method: string, path: string, options: Parameters<typeof portalCall>[3] = {}) =>
    portalCall(baseUrl, method, path, options);
  const started = await call('POST', '/v1/session/mfa', { cookie });
  expect(started.status).toBe(200);
  const { otpauth_uri, secret, qr_svg } = started.body as Record<string, string>;
  expect(base32Decode(secret!)).toHaveLength(20);
  const uri = new URL(otpauth_uri!);
  expect(uri.protocol).toBe('otpauth:');
  expect(uri.searchParams.get('secret')).toBe(secret);
  expect(uri.searchParams.get('issuer')).toMatch(/^svc-kit 127\.0\.0\.1:\d+$/);
  expect(decodeURIComponent(uri.pathname)).toContain(email);
  expect(qr_svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  expect(qr_svg).not.toMatch(/<script|href=|https?:\/\/(?!www\.w3\.org)/);
  // A wrong code is refused and enrols nothing.
  const wrong = await call('POST', '/v1/session/mfa/confirm', { cookie, body: { code: '000000' } });
  if (currentTotp(secret!, clock.at) !== '000000') expectError(wrong, 400, 'invalid_request');
  clock.at += 30_000;
  const confirmed = await call('POST', '/v1/session/mfa/confirm', {
    cookie,
    body: { code: currentTotp(secret!, clock.at) },
  });
  expect(confirmed.status).toBe(200);
  const { recovery_codes, stepped_up_until } = confirmed.body as {
    recovery_codes: string[];
    stepped_up_until: number;
  };
  expect(recovery_codes).toHaveLength(10);
  expect(new Set(recovery_codes).size).toBe(10);
  for (const code of recovery_codes) expect(code).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
  expect(stepped_up_until).toBe(clock.at + 15 * 60_000);
  return { secret: secret!, recoveryCodes: recovery_codes };
}

/** A service with sign-up open on a fresh store of the backend, for one `describe` (see service-lifecycle). */
export function accountService(
  backend: Backend,
  options: Omit<LifecycleOptions, 'open'> = {},
): ServiceUnderTest {
  return serviceForTests({ ...options, open: backend.open, extra: { signUpOpen: true, ...options.extra } });
}

/** Signs a new owner up from an address of its own: the session cookie, the e-mail and the first identity. */
export async function signUpOwner(baseUrl: string, prefix = 'owner', password = PASSWORD) {
  const email = uniqueEmail(prefix);
  const answer = await portalCall(baseUrl, 'POST', '/v1/accounts', {
    body: { email, password },
    from: freshAddress(),
  });
  expect(answer.status).toBe(201);
  const slug = (answer.body as { identities: { slug: string }[] }).identities[0]!.slug;
  return { email, cookie: cookieOf(answer), slug, answer };
}
