import { operationExamples } from '@svc-kit/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CARD_VALIDITY_MS, mintCard, type VerifiedCard, verifyCard } from '../../src/peer/card.js';
import { generateIdentityKeyPair, privateKeyFromPkcs8 } from '../../src/peer/keys.js';

const NOW = 1_800_000_000_000;
const pair = generateIdentityKeyPair();
const key = privateKeyFromPkcs8(pair.privateKeyPkcs8);
const payload = {
  fingerprint: pair.fingerprint,
  public_key: pair.publicKey,
  display_name: 'alice',
  endpoint: 'https://svc.example/peer/v1',
  issued_at: NOW,
  expires_at: NOW + CARD_VALIDITY_MS,
};

function reencode(card: string, change: (payload: Record<string, unknown>) => void): string {
  const [prefix, version, body, signature] = card.split('.');
  const json = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(json);
  return [prefix, version, Buffer.from(JSON.stringify(json)).toString('base64url'), signature].join('.');
}

function refusal(text: string, now = NOW): string {
  const verified = verifyCard(text, now);
  if (typeof verified !== 'string') throw new Error('the card was accepted');
  return verified;
}

function accepted(text: string, now = NOW): VerifiedCard {
  const verified = verifyCard(text, now);
  if (typeof verified === 'string') throw new Error(`the card was refused: ${verified}`);
  return verified;
}

describe('contact cards', () => {
  it('verifies a card it minted and gives back its fields', () => {
    const card = mintCard(payload, key);
    expect(card.startsWith('svc-card.v1.')).toBe(true);
    const verified = accepted(card, NOW + 1000);
    expect({ ...verified, publicKeyObject: undefined }).toEqual({
      ...payload,
      text: card,
      publicKeyObject: undefined,
    });
  });

  it('refuses an altered payload, a signature of another key, and a fingerprint of another key', () => {
    const card = mintCard(payload, key);
    expect(refusal(reencode(card, (p) => (p.display_name = 'mallory')))).toMatch(/signature/);
    const other = generateIdentityKeyPair();
    const signedByOther = mintCard(payload, privateKeyFromPkcs8(other.privateKeyPkcs8));
    expect(refusal(signedByOther)).toMatch(/signature/);
    const wrongFingerprint = mintCard({ ...payload, fingerprint: other.fingerprint }, key);
    expect(refusal(wrongFingerprint)).toMatch(/fingerprint does not match/);
  });

  it('refuses an expired card, one issued in the future and an oversized one', () => {
    expect(refusal(mintCard(payload, key), NOW + CARD_VALIDITY_MS)).toMatch(/expired/);
    expect(refusal(mintCard({ ...payload, issued_at: NOW + 3_600_000 }, key))).toMatch(/future/);
    expect(refusal(`svc-card.v1.${'a'.repeat(16384)}.b`)).toMatch(/1 to 16384/);
    expect(refusal('svc-card.v1.a.b.c')).toMatch(/payload>\.<signature/);
    expect(refusal('hello')).toMatch(/not a contact card/);
  });

  it('answers any string with a card or a refusal, never a failure', () => {
    const card = mintCard(payload, key);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.string({ maxLength: 200 }).map((tail) => `svc-card.v1.${tail}`),
          fc
            .nat({ max: card.length - 1 })
            .chain((index) =>
              fc
                .string({ minLength: 1, maxLength: 1 })
                .map((ch) => card.slice(0, index) + ch + card.slice(index + 1)),
            ),
        ),
        (text) => {
          const verified = verifyCard(text, NOW);
          return typeof verified === 'string' || text === card;
        },
      ),
      { numRuns: 500 },
    );
  });

  // The API reference shows requestContact with this card: it must be one this service reads, naming the
  // party the example's answer names. Checked at the examples' clock (2026-01-01, docs/test/http-examples).
  it('verifies the card of the requestContact example in the API reference', () => {
    const example = operationExamples.requestContact;
    const { card: text } = example.request.body as { card: string };
    const card = accepted(text, 1_767_225_600_000);
    const { contact } = example.answer.body as { contact: object };
    expect({
      fingerprint: card.fingerprint,
      endpoint: card.endpoint,
      display_name: card.display_name,
    }).toEqual(contact);
  });
});
