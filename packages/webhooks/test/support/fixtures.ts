// Test fixtures. Signatures are made here with plain node:crypto, independently of the SDK's `sign`, so
// that a bug shared by the signer and the verifier cannot hide itself.
import { createHmac } from 'node:crypto';
import type { HeaderInput, VerifyOptions, VerifyResult, WebhookErrorReason } from '@svc-kit/webhooks';
import * as nodeBuild from '@svc-kit/webhooks';
import * as webBuild from '@svc-kit/webhooks/web';
import { expect } from 'vitest';

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const OLD_SECRET = 'whsec_oldoldoldoldoldoldoldoldoldoldol';
/** A fixed "now": 2025-11-22T00:00:00Z, whole second. */
export const NOW_MS = 1_763_769_600_000;
export const NOW_S = NOW_MS / 1000;
export const clock = () => NOW_MS;

export const CONTACT = `sha256:${'0123456789abcdef'.repeat(4)}`;

export function messageEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'evt_01JD5X0W7Q3ZP8M2K4N6R9T1VB',
    type: 'message.received',
    created_at: NOW_MS - 2_000,
    identity: 'acme-support',
    data: { thread_id: 'thr_8f2k', contact: CONTACT },
    ...overrides,
  };
}

export function bytesOf(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
}

/** hex HMAC-SHA256 of `<t>.<body>` under the secret's UTF-8 bytes. */
export function referenceV1(secret: string, t: string | number, body: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${t}.`, 'utf8'), bytesOf(body)]))
    .digest('hex');
}

export function referenceHeader(
  secrets: readonly string[],
  t: string | number,
  body: string | Uint8Array,
): string {
  return [`t=${t}`, ...secrets.map((secret) => `v1=${referenceV1(secret, t, body)}`)].join(',');
}

export interface DeliveryHeaders extends Record<string, string> {
  'x-service-signature': string;
  'x-service-event-id': string;
  'x-service-event-type': string;
  'x-service-delivery': string;
}

/** A full delivery: body text and the four headers, signed at `t` (default now). */
export function delivery(
  event: Record<string, unknown> = messageEvent(),
  options: { secrets?: readonly string[]; t?: string | number } = {},
): { body: string; headers: DeliveryHeaders } {
  const body = JSON.stringify(event);
  return {
    body,
    headers: {
      'x-service-signature': referenceHeader(options.secrets ?? [SECRET], options.t ?? NOW_S, body),
      'x-service-event-id': String(event.id),
      'x-service-event-type': String(event.type),
      'x-service-delivery': 'dlv_0001',
    },
  };
}

export const baseOptions: VerifyOptions = { secret: SECRET, now: clock };

type SafeVerify = (body: unknown, headers: HeaderInput, options: VerifyOptions) => Promise<VerifyResult>;
type ThrowingVerify = (body: never, headers: HeaderInput, options: VerifyOptions) => unknown;

export interface Build {
  name: string;
  safe: SafeVerify;
  /** The throwing form; may return a promise. */
  strict: ThrowingVerify;
}

/** Every way to verify a delivery: the Node build sync and async, and the Web build. */
export const BUILDS: readonly Build[] = [
  { name: 'node sync', safe: async (b, h, o) => nodeBuild.safeVerify(b, h, o), strict: nodeBuild.verify },
  { name: 'node async', safe: nodeBuild.safeVerifyAsync, strict: nodeBuild.verifyAsync },
  { name: 'web', safe: webBuild.safeVerifyAsync, strict: webBuild.verifyAsync },
];

/**
 * Runs one input through a build's safe and throwing forms, checks they agree, and returns the reason
 * (or 'ok').
 */
export async function outcome(
  build: Build,
  body: unknown,
  headers: HeaderInput,
  options: VerifyOptions,
): Promise<WebhookErrorReason | 'ok'> {
  const result = await build.safe(body, headers, options);
  let thrown: unknown;
  try {
    await build.strict(body as never, headers, options);
  } catch (error) {
    thrown = error;
  }
  if (result.ok) {
    expect(thrown).toBeUndefined();
    return 'ok';
  }
  expect(result.error).toBeInstanceOf(nodeBuild.WebhookVerificationError);
  expect(thrown).toBeInstanceOf(nodeBuild.WebhookVerificationError);
  expect((thrown as nodeBuild.WebhookVerificationError).reason).toBe(result.error.reason);
  return result.error.reason;
}
