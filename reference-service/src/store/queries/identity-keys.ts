import { insertRow, type Queryable } from '../db.js';

export interface IdentityKeyRow {
  identity_id: string;
  fingerprint: string;
  public_key: string;
  private_key_enc: string;
  card: string | null;
  card_expires_at: number | null;
  created_at: number;
}

/** An identity with its key, as the contacts code needs it. */
export interface KeyedIdentity extends IdentityKeyRow {
  workspace_id: string;
  slug: string;
}

export async function findIdentityBySlug(
  db: Queryable,
  workspaceId: string,
  slug: string,
): Promise<{ id: string; workspace_id: string; slug: string } | undefined> {
  const rows = await db.query<{ id: string; workspace_id: string; slug: string }>(
    'SELECT id, workspace_id, slug FROM identities WHERE workspace_id = $1 AND slug = $2',
    [workspaceId, slug],
  );
  return rows[0];
}

/** Stores a key pair unless the identity has one already (two instances may race); returns the winner. */
export async function insertIdentityKeyOnce(db: Queryable, row: IdentityKeyRow): Promise<IdentityKeyRow> {
  await insertRow(db, 'identity_keys', row, ' ON CONFLICT (identity_id) DO NOTHING');
  const stored = await getIdentityKey(db, row.identity_id);
  if (!stored) throw new Error('identity key vanished after insert');
  return stored;
}

export async function getIdentityKey(db: Queryable, identityId: string): Promise<IdentityKeyRow | undefined> {
  const rows = await db.query<IdentityKeyRow>('SELECT * FROM identity_keys WHERE identity_id = $1', [
    identityId,
  ]);
  return rows[0];
}

export async function findKeyedIdentityByFingerprint(
  db: Queryable,
  fingerprint: string,
): Promise<KeyedIdentity | undefined> {
  const rows = await db.query<KeyedIdentity>(
    `SELECT k.*, i.workspace_id, i.slug FROM identity_keys k JOIN identities i ON i.id = k.identity_id
      WHERE k.fingerprint = $1`,
    [fingerprint],
  );
  return rows[0];
}

export async function storeIdentityCard(
  db: Queryable,
  identityId: string,
  card: string,
  expiresAt: number,
): Promise<void> {
  await db.query('UPDATE identity_keys SET card = $2, card_expires_at = $3 WHERE identity_id = $1', [
    identityId,
    card,
    expiresAt,
  ]);
}
