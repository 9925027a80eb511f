import { columnNames, insertRow, type Queryable } from '../db.js';

export type IntegrationStatus = 'healthy' | 'needs_authorization' | 'unreachable' | 'error';

export interface IntegrationRow {
  id: string;
  identity_id: string;
  workspace_id: string;
  slug: string;
  transport: string;
  endpoint: string;
  catalogue: string | null;
  status: IntegrationStatus;
  trouble: string | null;
  auth_enc: string | null;
  oauth_client_enc: string | null;
  oauth_tokens_enc: string | null;
  oauth_verifier_enc: string | null;
  oauth_state: string | null;
  oauth_redirect_uri: string | null;
  /** JSON: the upstream's tools as last seen. */
  catalog: string;
  /** JSON: the exposure entries. */
  exposure: string;
  exposure_version: number;
  created_at: number;
  updated_at: number;
}

export async function insertIntegration(db: Queryable, row: IntegrationRow): Promise<void> {
  await insertRow(db, 'integrations', row);
}

export type IntegrationChange = Partial<Omit<IntegrationRow, 'id' | 'identity_id' | 'workspace_id' | 'slug'>>;

/**
 * Sets the given columns of one row. The column names are the typed keys of an object literal, never input
 * (as with insertRow), so each caller's change has one text, and the texts are as few as the callers.
 */
export async function updateIntegration(db: Queryable, id: string, change: IntegrationChange): Promise<void> {
  const columns = columnNames(change);
  if (columns.length === 0) return;
  const sets = columns.map((column, index) => `${column} = $${index + 2}`).join(', ');
  await db.query(`UPDATE integrations SET ${sets} WHERE id = $1`, [id, ...Object.values(change)]);
}

const GET_INTEGRATION = 'SELECT * FROM integrations WHERE identity_id = $1 AND slug = $2';
const GET_INTEGRATION_FOR_UPDATE = `${GET_INTEGRATION} FOR UPDATE`;

export async function getIntegration(
  db: Queryable,
  identityId: string,
  slug: string,
  forUpdate = false,
): Promise<IntegrationRow | undefined> {
  const rows = await db.query<IntegrationRow>(forUpdate ? GET_INTEGRATION_FOR_UPDATE : GET_INTEGRATION, [
    identityId,
    slug,
  ]);
  return rows[0];
}

export async function getIntegrationById(db: Queryable, id: string): Promise<IntegrationRow | undefined> {
  const rows = await db.query<IntegrationRow>('SELECT * FROM integrations WHERE id = $1', [id]);
  return rows[0];
}

export async function findIntegrationByOAuthState(
  db: Queryable,
  state: string,
): Promise<IntegrationRow | undefined> {
  const rows = await db.query<IntegrationRow>('SELECT * FROM integrations WHERE oauth_state = $1', [state]);
  return rows[0];
}

/** Oldest first: the order in which same-named tools of two integrations are resolved. */
export async function listIntegrationRows(db: Queryable, identityId: string): Promise<IntegrationRow[]> {
  return db.query<IntegrationRow>(
    'SELECT * FROM integrations WHERE identity_id = $1 ORDER BY created_at, slug',
    [identityId],
  );
}

export async function deleteIntegrationRow(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM integrations WHERE id = $1', [id]);
}

/** An identity's integrations, with the identity's row locked against a racing create. */
export async function countIntegrationsLocked(db: Queryable, identityId: string): Promise<number> {
  await db.query('SELECT id FROM identities WHERE id = $1 FOR UPDATE', [identityId]);
  const rows = await db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM integrations WHERE identity_id = $1',
    [identityId],
  );
  return rows[0]!.count;
}
