import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { SESSION_COOKIE } from '../../src/http/principal.js';
import { type RawAnswer, rawCall } from '../support/raw-call.js';

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
