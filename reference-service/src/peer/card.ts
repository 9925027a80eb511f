import type { KeyObject } from 'node:crypto';
import { DISPLAY_TEXT_MESSAGE, describeIssues, FINGERPRINT_PATTERN, isDisplayText } from '@svc-kit/contract';
import { z } from 'zod';
import { holdsNul } from '../domain/storable-text.js';
import { fingerprintOf, publicKeyFromRaw, signBytes, verifyBytes } from './keys.js';

/**
 * Contact card, format v1 (documented in PEER-PROTOCOL.md):
 *   svc-card.v1.<base64url(JSON payload)>.<base64url(Ed25519 signature)>
 * The signature covers the ASCII text `svc-card.v1.<payload part>`, so the payload is verified as sent and
 * never re-encoded. The fingerprint is `sha256:<hex>` of the raw public key carried in the payload.
 */
export const CARD_PREFIX = 'svc-card.v1.';
/** Same bound as the `card` field of requestContact. */
export const MAX_CARD_LENGTH = 16384;
/** A card is valid for 30 days; the service re-issues it when less than half of that is left. */
export const CARD_VALIDITY_MS = 30 * 24 * 60 * 60 * 1000;
/** Clocks of two instances may differ a little; a card issued slightly "in the future" is accepted. */
const ISSUE_SKEW_MS = 5 * 60 * 1000;

/**
 * The payload is decoded from inside the card, so the body's own checks never saw it: it meets the rules a
 * request body meets (nothing the database cannot store) and those of every name a person reads.
 */
const payloadSchema = z.strictObject({
  fingerprint: z.string().regex(FINGERPRINT_PATTERN, 'must be sha256:<64 hex digits>'),
  public_key: z.string().length(43),
  display_name: z
    .string()
    .min(1)
    .max(128)
    .refine(isDisplayText, DISPLAY_TEXT_MESSAGE)
    .refine((name) => name.trim() !== '', 'must show something besides spaces'),
  // The URL parser would quietly drop or encode what this refuses; the card is stored and shown as sent.
  endpoint: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .regex(/^[^\s\p{Cc}\p{Cf}]+$/u, 'must not contain spaces, controls or invisible characters'),
  issued_at: z.int().nonnegative(),
  expires_at: z.int().nonnegative(),
});

export type CardPayload = z.output<typeof payloadSchema>;

export interface VerifiedCard extends CardPayload {
  /** The card text exactly as received. */
  text: string;
  publicKeyObject: KeyObject;
}

export function mintCard(payload: CardPayload, privateKey: KeyObject): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  const signed = `${CARD_PREFIX}${body}`;
  return `${signed}.${signBytes(privateKey, Buffer.from(signed, 'ascii')).toString('base64url')}`;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function isCanonical(part: string): boolean {
  return Buffer.from(part, 'base64url').toString('base64url') === part;
}

/**
 * The verified card, or why it is refused, in words fit for the caller. Checks, in order: size, shape,
 * payload fields, that the fingerprint is the key's, the signature, and the validity window: a forged card
 * never gets past the signature check and an expired one never past the window.
 */
export function verifyCard(text: string, now: number): VerifiedCard | string {
  if (text.length === 0 || text.length > MAX_CARD_LENGTH)
    return `a card is 1 to ${MAX_CARD_LENGTH} characters`;
  if (!text.startsWith(CARD_PREFIX)) return 'not a contact card (expected svc-card.v1.…)';
  const rest = text.slice(CARD_PREFIX.length).split('.');
  const [body, signature] = rest;
  if (rest.length !== 2 || !body || !signature || !BASE64URL.test(body) || !BASE64URL.test(signature))
    return 'the card must be svc-card.v1.<payload>.<signature>, both base64url';
  // One text per card: non-canonical base64url (stray trailing bits) would give a second spelling.
  if (!isCanonical(body) || !isCanonical(signature)) return 'the card is not canonical base64url';
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return 'the card payload is not JSON';
  }
  if (holdsNul(json)) return 'the card payload holds a NUL character (U+0000)';
  const parsed = payloadSchema.safeParse(json);
  if (!parsed.success) return `the card payload is invalid: ${describeIssues(parsed.error.issues)}`;
  const payload = parsed.data;
  const publicKeyObject = publicKeyFromRaw(payload.public_key);
  if (!publicKeyObject) return 'the card’s public key is not an Ed25519 key';
  if (fingerprintOf(Buffer.from(payload.public_key, 'base64url')) !== payload.fingerprint)
    return 'the card’s fingerprint does not match its public key';
  const signed = Buffer.from(`${CARD_PREFIX}${body}`, 'ascii');
  if (!verifyBytes(publicKeyObject, signed, Buffer.from(signature, 'base64url')))
    return 'the card’s signature does not verify (forged or altered card)';
  if (payload.expires_at <= payload.issued_at) return 'the card expires before it is issued';
  if (payload.issued_at > now + ISSUE_SKEW_MS) return 'the card is issued in the future';
  if (payload.expires_at <= now) return 'the card has expired';
  return { ...payload, text, publicKeyObject };
}
