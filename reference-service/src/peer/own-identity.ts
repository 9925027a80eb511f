import type { KeyObject } from 'node:crypto';
import type { Queryable } from '../store/db.js';
import {
  getIdentityKey,
  type IdentityKeyRow,
  insertIdentityKeyOnce,
  storeIdentityCard,
} from '../store/queries/identity-keys.js';
import type { SecretBox } from '../store/secret-box.js';
import { CARD_VALIDITY_MS, mintCard } from './card.js';
import { generateIdentityKeyPair, privateKeyFromPkcs8 } from './keys.js';
import { PEER_PATH_PREFIX } from './protocol.js';

/** One of our identities, ready to sign: its key, its current card. */
export interface Signer {
  fingerprint: string;
  card: string;
  privateKey: KeyObject;
}

/** The peer endpoint of this instance as seen from `baseUrl` (`http://127.0.0.1:8080` → `…/peer/v1`). */
export function peerEndpointOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${PEER_PATH_PREFIX}`;
}

/** Identities created before contacts existed get their key pair on first use. */
export async function ensureIdentityKey(
  db: Queryable,
  secretBox: SecretBox,
  identityId: string,
  now: number,
): Promise<IdentityKeyRow> {
  const existing = await getIdentityKey(db, identityId);
  if (existing) return existing;
  const pair = generateIdentityKeyPair();
  return insertIdentityKeyOnce(db, {
    identity_id: identityId,
    fingerprint: pair.fingerprint,
    public_key: pair.publicKey,
    private_key_enc: secretBox.seal(pair.privateKeyPkcs8, identityId),
    card: null,
    card_expires_at: null,
    created_at: now,
  });
}

function cardFields(card: string): { display_name?: unknown; endpoint?: unknown } {
  const body = card.split('.')[2] ?? '';
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as object;
  } catch {
    return {};
  }
}

/**
 * The identity's card for `endpoint`. The stored card is reused while it names the same endpoint and
 * display name and has more than half of its validity left, so a contact's refresh reads `unchanged`
 * until the card is really re-issued (`renewed`) or changed (`updated`).
 */
export async function signerFor(
  db: Queryable,
  secretBox: SecretBox,
  identity: { id: string; slug: string },
  endpoint: string,
  now: number,
): Promise<Signer> {
  const key = await ensureIdentityKey(db, secretBox, identity.id, now);
  const privateKey = privateKeyFromPkcs8(secretBox.open(key.private_key_enc, identity.id));
  const displayName = identity.slug;
  let card = key.card;
  const stored = card === null ? {} : cardFields(card);
  const fresh =
    card !== null &&
    key.card_expires_at !== null &&
    key.card_expires_at - now > CARD_VALIDITY_MS / 2 &&
    stored.endpoint === endpoint &&
    stored.display_name === displayName;
  if (!fresh) {
    const expiresAt = now + CARD_VALIDITY_MS;
    card = mintCard(
      {
        fingerprint: key.fingerprint,
        public_key: key.public_key,
        display_name: displayName,
        endpoint,
        issued_at: now,
        expires_at: expiresAt,
      },
      privateKey,
    );
    await storeIdentityCard(db, identity.id, card, expiresAt);
  }
  return { fingerprint: key.fingerprint, card: card as string, privateKey };
}
