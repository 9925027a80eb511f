import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  createSandboxCard,
  FINGERPRINT_PATTERN,
  parseSandboxCard,
  SANDBOX_CARD_PREFIX,
  sandboxFingerprint,
} from '../src/index.js';

describe('sandbox contact cards', () => {
  test('a card round-trips; the fingerprint comes from the endpoint unless given', () => {
    const card = createSandboxCard({ display_name: 'Zoë 🌱', endpoint: 'https://z.example.org/a' });
    expect(card.startsWith(SANDBOX_CARD_PREFIX)).toBe(true);
    expect(parseSandboxCard(card)).toEqual({
      display_name: 'Zoë 🌱',
      endpoint: 'https://z.example.org/a',
      fingerprint: sandboxFingerprint('https://z.example.org/a'),
      auto_accept: false,
    });
    const given = sandboxFingerprint('given');
    expect(
      parseSandboxCard(createSandboxCard({ display_name: 'Y', endpoint: 'e', fingerprint: given }))
        ?.fingerprint,
    ).toBe(given);
  });

  test('fingerprints have the sha256:<64 hex> shape and differ per label', () => {
    expect(sandboxFingerprint('a')).toMatch(FINGERPRINT_PATTERN);
    expect(sandboxFingerprint('a')).toBe(sandboxFingerprint('a'));
    expect(sandboxFingerprint('a')).not.toBe(sandboxFingerprint('b'));
  });

  test.each([
    ['an empty display name', { display_name: '', endpoint: 'e' }],
    ['an empty endpoint', { display_name: 'A', endpoint: '' }],
    ['a fingerprint of the wrong shape', { display_name: 'A', endpoint: 'e', fingerprint: 'sha256:XYZ' }],
  ])('createSandboxCard refuses %s with a TypeError', (_why, input) => {
    expect(() => createSandboxCard(input)).toThrow(TypeError);
  });

  test.each([
    ['another prefix', 'svc-card-v1.e30'],
    ['not base64url', `${SANDBOX_CARD_PREFIX}!!!`],
    ['not JSON', `${SANDBOX_CARD_PREFIX}bm90IGpzb24`],
    ['JSON without the fields', `${SANDBOX_CARD_PREFIX}e30`],
  ])('parseSandboxCard answers undefined for %s', (_why, text) => {
    expect(parseSandboxCard(text)).toBeUndefined();
  });

  test('parseSandboxCard never throws, and whatever it accepts is a valid card', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => SANDBOX_CARD_PREFIX + s),
          fc.base64String().map((s) => SANDBOX_CARD_PREFIX + s),
        ),
        (text) => {
          const card = parseSandboxCard(text);
          if (card !== undefined) expect(card.fingerprint).toMatch(FINGERPRINT_PATTERN);
        },
      ),
    );
  });

  test('any display name and endpoint survive the round trip', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, unit: 'grapheme' }),
        fc.string({ minLength: 1 }),
        fc.boolean(),
        (name, endpoint, auto) => {
          const card = createSandboxCard({ display_name: name, endpoint, auto_accept: auto });
          expect(parseSandboxCard(card)).toMatchObject({ display_name: name, endpoint, auto_accept: auto });
        },
      ),
    );
  });
});
