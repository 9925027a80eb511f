// Properties over arbitrary input: the safe forms always answer with a typed result, signing and verifying
// round-trip for any body, secret and timestamp, and any single-byte change breaks verification.
import * as nodeBuild from '@svc-kit/webhooks';
import { parseSignatureHeader, WebhookVerificationError } from '@svc-kit/webhooks';
import * as webBuild from '@svc-kit/webhooks/web';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILDS } from './support/fixtures';

const headerText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 100 }),
  // Near-misses of the real format, which reach deeper into the parser.
  fc
    .array(
      fc.tuple(
        fc.constantFrom('t', 'v1', 'v0', 'v2', 'T', '', ' t'),
        fc.oneof(
          fc.string({ maxLength: 70 }),
          fc.stringMatching(/^[0-9a-fA-F]{60,68}$/),
          fc.nat().map(String),
        ),
      ),
      { maxLength: 20 },
    )
    .map((parts) => parts.map(([key, value]) => `${key}=${value}`).join(',')),
);

const anyValue = fc.oneof(
  fc.anything(),
  fc.string(),
  fc.uint8Array({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => bytes.buffer),
);

const headersLike = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 30 }), fc.oneof(fc.string(), fc.array(fc.string()), fc.anything())),
  headerText.map((value) => ({ 'x-service-signature': value })),
  fc.anything(),
);

const optionsLike = fc.oneof(
  fc.record({
    secret: fc.oneof(fc.string(), fc.array(fc.string()), fc.anything()),
    toleranceSeconds: fc.oneof(fc.double(), fc.constant(undefined), fc.anything()),
    now: fc.oneof(
      fc.constant(undefined),
      fc.constant(() => Date.now()),
      fc.anything(),
    ),
  }),
  fc.anything(),
);

function isTypedError(error: unknown): boolean {
  return error instanceof WebhookVerificationError && typeof error.reason === 'string';
}

describe('parseSignatureHeader', () => {
  it('returns a parsed header or throws malformed_header, for any string', () => {
    fc.assert(
      fc.property(headerText, (value) => {
        try {
          const parsed = parseSignatureHeader(value);
          expect(parsed.timestamp).toMatch(/^[0-9]{1,15}$/);
          expect(parsed.signatures.length).toBeGreaterThan(0);
        } catch (error) {
          expect(isTypedError(error)).toBe(true);
          expect((error as WebhookVerificationError).reason).toBe('malformed_header');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe.each(BUILDS)('$name safe form', (build) => {
  it('never throws and always returns a typed result, for any body, headers and options', async () => {
    await fc.assert(
      fc.asyncProperty(anyValue, headersLike, optionsLike, async (body, headers, options) => {
        const result = await build.safe(body, headers as never, options as never);
        if (!result.ok) expect(isTypedError(result.error)).toBe(true);
        else expect(typeof result.event.id).toBe('string');
      }),
      { numRuns: 500 },
    );
  });

  it('refuses well-configured verification of arbitrary headers with a typed reason', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 100 }), headerText, async (body, signature) => {
        const result = await build.safe(body, { 'x-service-signature': signature }, { secret: 'k' });
        expect(result.ok).toBe(false);
        if (!result.ok) expect(isTypedError(result.error)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

const secretArb = fc.string({ minLength: 1, maxLength: 64, unit: 'grapheme' });
const bodyArb = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 500 }), fc.uint8Array({ maxLength: 500 }));
const timestampArb = fc.integer({ min: 0, max: 4_102_444_800 });

describe('sign → verifySignature', () => {
  it('round-trips for any body, secrets and timestamp, across builds', async () => {
    await fc.assert(
      fc.asyncProperty(
        bodyArb,
        fc.array(secretArb, { minLength: 1, maxLength: 3 }),
        timestampArb,
        fc.boolean(),
        async (body, secrets, timestamp, signOnWeb) => {
          const header = signOnWeb
            ? await webBuild.signAsync(body, { secret: secrets, timestamp })
            : nodeBuild.sign(body, { secret: secrets, timestamp });
          const options = { secret: secrets.at(-1)!, now: () => timestamp * 1000 };
          expect(() => nodeBuild.verifySignature(body, header, options)).not.toThrow();
          await expect(webBuild.verifySignatureAsync(body, header, options)).resolves.toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('fails after any single-byte change of the body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        secretArb,
        timestampArb,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (body, secret, timestamp, position, delta) => {
          const header = nodeBuild.sign(body, { secret, timestamp });
          const changed = Uint8Array.from(body);
          const index = position % changed.length;
          changed[index] = (changed[index]! + delta) % 256;
          const options = { secret, now: () => timestamp * 1000 };
          for (const verify of [
            async () => nodeBuild.verifySignature(changed, header, options),
            () => webBuild.verifySignatureAsync(changed, header, options),
          ]) {
            await expect(verify()).rejects.toMatchObject({ reason: 'no_matching_signature' });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives the same answer sync and async, Node and Web, for arbitrary headers over a signed body', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, headerText, fc.boolean(), async (body, noise, useNoise) => {
        const signature = useNoise ? noise : nodeBuild.sign(body, { secret: 's', timestamp: 100 });
        const options = { secret: 's', now: () => 100_000 };
        const reasons = await Promise.all(
          [
            async () => nodeBuild.verifySignature(body, signature, options),
            () => nodeBuild.verifySignatureAsync(body, signature, options),
            () => webBuild.verifySignatureAsync(body, signature, options),
          ].map(async (run) => {
            try {
              await run();
              return 'ok';
            } catch (error) {
              return (error as WebhookVerificationError).reason;
            }
          }),
        );
        expect(new Set(reasons).size).toBe(1);
      }),
      { numRuns: 500 },
    );
  });
});

describe('hostile input', () => {
  const hostile = new Proxy(
    {},
    {
      get() {
        throw new Error('trap');
      },
      has() {
        throw new Error('trap');
      },
      ownKeys() {
        throw new Error('trap');
      },
      getPrototypeOf() {
        throw new Error('trap');
      },
      getOwnPropertyDescriptor() {
        throw new Error('trap');
      },
    },
  );

  it.each(BUILDS)('$name: proxies whose every trap throws still give typed results', async (build) => {
    const combos: Array<[unknown, unknown, unknown]> = [
      [hostile, { 'x-service-signature': 't=1,v1=a' }, { secret: 'k' }],
      ['body', hostile, { secret: 'k' }],
      ['body', { 'x-service-signature': 't=1,v1=a' }, hostile],
      ['body', { 'x-service-signature': 't=1,v1=a' }, { secret: hostile }],
      ['body', { 'x-service-signature': hostile }, { secret: 'k' }],
    ];
    for (const [body, headers, options] of combos) {
      const result = await build.safe(body, headers as never, options as never);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(isTypedError(result.error)).toBe(true);
    }
  });
});
