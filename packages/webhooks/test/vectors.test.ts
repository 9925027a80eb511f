// Checks the SDK against the shared vectors in /test-vectors, which an independent signer (node:crypto
// only, no SDK code) produced. Each vector runs through every entry point, sync and async, and through
// both builds: they must all give exactly the outcome the vector states.
import { readFileSync } from 'node:fs';
import * as nodeBuild from '@svc-kit/webhooks';
import * as webBuild from '@svc-kit/webhooks/web';
import { describe, expect, it } from 'vitest';

type BodySpec = { utf8: string } | { base64: string } | { repeat: string; times: number };
type Outcome = { valid: true } | { valid: false; reason: string };

interface SignatureCase {
  name: string;
  description: string;
  secrets: string[];
  signature_header: string | null;
  body: BodySpec;
  now_ms: number;
  tolerance_seconds: number;
  expected: Outcome;
  event_headers: Record<string, string>;
  expected_event: Outcome;
  signed_with: { timestamp: number; secrets: string[] } | null;
}

interface PayloadCase {
  name: string;
  description: string;
  secrets: string[];
  headers: Record<string, string>;
  body: BodySpec;
  now_ms: number;
  tolerance_seconds: number;
  expected: { valid: true; event: Record<string, unknown> } | { valid: false; reason: string };
  signed_with: { timestamp: number; secrets: string[] };
}

function load<T>(file: string): T[] {
  const url = new URL(`../../../test-vectors/${file}`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { cases: T[] }).cases;
}

const signatureCases = load<SignatureCase>('signature-cases.json');
const payloadCases = load<PayloadCase>('payload-cases.json');

/** The bytes a body spec stands for (see test-vectors/README.md). */
function bytesOf(spec: BodySpec): Buffer {
  if ('utf8' in spec) return Buffer.from(spec.utf8, 'utf8');
  if ('base64' in spec) return Buffer.from(spec.base64, 'base64');
  return Buffer.from(spec.repeat.repeat(spec.times), 'utf8');
}

/**
 * Every form the raw body may take in an integration: bytes (Buffer, plain Uint8Array, ArrayBuffer) and,
 * when the bytes are text, a string. A body that is not valid UTF-8 has no faithful string form.
 */
function bodyForms(spec: BodySpec): Array<[string, string | Uint8Array | ArrayBuffer]> {
  const bytes = bytesOf(spec);
  const copy = new Uint8Array(bytes);
  const forms: Array<[string, string | Uint8Array | ArrayBuffer]> = [
    ['Buffer', bytes],
    ['Uint8Array', copy],
    ['ArrayBuffer', copy.buffer],
  ];
  if (!('base64' in spec)) forms.push(['string', bytes.toString('utf8')]);
  return forms;
}

/** What a call produced, reduced to what a vector states. */
type Observed = { valid: true; event?: unknown } | { valid: false; reason: string };

function observeThrow(call: () => unknown): Observed {
  try {
    call();
    return { valid: true };
  } catch (error) {
    return { valid: false, reason: reasonOf(error) };
  }
}

async function observeReject(call: () => Promise<unknown>): Promise<Observed> {
  try {
    await call();
    return { valid: true };
  } catch (error) {
    return { valid: false, reason: reasonOf(error) };
  }
}

function reasonOf(error: unknown): string {
  // Anything but the SDK's own error is a crash, which no vector allows.
  expect(error).toBeInstanceOf(nodeBuild.WebhookVerificationError);
  return (error as InstanceType<typeof nodeBuild.WebhookVerificationError>).reason;
}

type SafeResult = { ok: true; event: unknown } | { ok: false; error: { reason: string } };
function observeSafe(result: SafeResult): Observed {
  return result.ok ? { valid: true, event: result.event } : { valid: false, reason: result.error.reason };
}

/** A full outcome compared with a vector outcome: the event itself is compared where the vector has one. */
function withoutEvent(observed: Observed): Outcome {
  return observed.valid ? { valid: true } : observed;
}

describe('signature vectors', () => {
  describe.each(signatureCases.map((c) => [c.name, c] as const))('%s', (_name, vector) => {
    const options = {
      secret: vector.secrets,
      toleranceSeconds: vector.tolerance_seconds,
      now: () => vector.now_ms,
    };
    const headers: Record<string, string> = { ...vector.event_headers };
    if (vector.signature_header !== null) headers['x-service-signature'] = vector.signature_header;
    const header = vector.signature_header ?? undefined;

    it.each(bodyForms(vector.body))(
      'verifySignature and verifySignatureAsync, body as %s',
      async (_form, body) => {
        expect(observeThrow(() => nodeBuild.verifySignature(body, header, options))).toEqual(vector.expected);
        expect(observeThrow(() => webBuild.verifySignature(body, header, options))).toEqual(vector.expected);
        expect(await observeReject(() => nodeBuild.verifySignatureAsync(body, header, options))).toEqual(
          vector.expected,
        );
        expect(await observeReject(() => webBuild.verifySignatureAsync(body, header, options))).toEqual(
          vector.expected,
        );
      },
    );

    it.each(bodyForms(vector.body))('safeVerify and safeVerifyAsync, body as %s', async (_form, body) => {
      expect(withoutEvent(observeSafe(nodeBuild.safeVerify(body, headers, options)))).toEqual(
        vector.expected_event,
      );
      expect(withoutEvent(observeSafe(webBuild.safeVerify(body, headers, options)))).toEqual(
        vector.expected_event,
      );
      expect(withoutEvent(observeSafe(await nodeBuild.safeVerifyAsync(body, headers, options)))).toEqual(
        vector.expected_event,
      );
      expect(withoutEvent(observeSafe(await webBuild.safeVerifyAsync(body, headers, options)))).toEqual(
        vector.expected_event,
      );
    });

    it.each(bodyForms(vector.body))(
      'verify and verifyAsync (throwing forms), body as %s',
      async (_form, body) => {
        expect(observeThrow(() => nodeBuild.verify(body, headers, options))).toEqual(vector.expected_event);
        expect(observeThrow(() => webBuild.verify(body, headers, options))).toEqual(vector.expected_event);
        expect(await observeReject(() => nodeBuild.verifyAsync(body, headers, options))).toEqual(
          vector.expected_event,
        );
      },
    );

    const signedWith = vector.signed_with;
    if (signedWith !== null) {
      it('sign and signAsync reproduce the header byte for byte', async () => {
        const body = bytesOf(vector.body);
        const signOptions = { secret: signedWith.secrets, timestamp: signedWith.timestamp };
        expect(nodeBuild.sign(body, signOptions)).toBe(vector.signature_header);
        expect(webBuild.sign(body, signOptions)).toBe(vector.signature_header);
        expect(await nodeBuild.signAsync(body, signOptions)).toBe(vector.signature_header);
        expect(await webBuild.signAsync(body, signOptions)).toBe(vector.signature_header);
      });
    }
  });
});

describe('payload vectors', () => {
  describe.each(payloadCases.map((c) => [c.name, c] as const))('%s', (_name, vector) => {
    const options = {
      secret: vector.secrets,
      toleranceSeconds: vector.tolerance_seconds,
      now: () => vector.now_ms,
    };
    const expected: Observed = vector.expected.valid
      ? { valid: true, event: vector.expected.event }
      : { valid: false, reason: vector.expected.reason };

    it.each(bodyForms(vector.body))('safeVerify and safeVerifyAsync, body as %s', async (_form, body) => {
      expect(observeSafe(nodeBuild.safeVerify(body, vector.headers, options))).toEqual(expected);
      expect(observeSafe(await nodeBuild.safeVerifyAsync(body, vector.headers, options))).toEqual(expected);
      expect(observeSafe(await webBuild.safeVerifyAsync(body, vector.headers, options))).toEqual(expected);
    });

    it('gives the same outcome with Fetch Headers as with a plain record', async () => {
      const fetchHeaders = new Headers(vector.headers);
      const body = bytesOf(vector.body);
      expect(observeSafe(nodeBuild.safeVerify(body, fetchHeaders, options))).toEqual(expected);
      expect(observeSafe(await webBuild.safeVerifyAsync(body, fetchHeaders, options))).toEqual(expected);
    });

    it('the signature itself always verifies (every payload vector is correctly signed)', () => {
      const body = bytesOf(vector.body);
      expect(
        observeThrow(() => nodeBuild.verifySignature(body, vector.headers['x-service-signature'], options)),
      ).toEqual({ valid: true });
      expect(
        nodeBuild.sign(body, { secret: vector.signed_with.secrets, timestamp: vector.signed_with.timestamp }),
      ).toBe(vector.headers['x-service-signature']);
    });
  });
});

describe('coverage of the vectors', () => {
  it('has a valid payload vector for every catalogued event type', () => {
    const validTypes = new Set(
      payloadCases.flatMap((c) => (c.expected.valid ? [String(c.expected.event.type)] : [])),
    );
    for (const type of nodeBuild.EVENT_TYPES) expect(validTypes, type).toContain(type);
    // …and one for a type the catalogue does not have, which must pass through.
    expect([...validTypes].some((type) => !(nodeBuild.EVENT_TYPES as readonly string[]).includes(type))).toBe(
      true,
    );
  });

  it('exercises every refusal reason a delivery can cause', () => {
    const reasons = new Set<string>();
    for (const c of signatureCases) {
      if (!c.expected.valid) reasons.add(c.expected.reason);
      if (!c.expected_event.valid) reasons.add(c.expected_event.reason);
    }
    for (const c of payloadCases) if (!c.expected.valid) reasons.add(c.expected.reason);
    expect([...reasons].sort()).toEqual(
      [
        'missing_header',
        'malformed_header',
        'timestamp_too_old',
        'timestamp_too_new',
        'no_matching_signature',
        'invalid_json',
        'invalid_payload',
        'header_mismatch',
        'invalid_secret',
        'invalid_options',
      ].sort(),
    );
  });
});
