import { type CatalogueEvent, INTEGRATION_PERMISSION, type Integration } from '@svc-kit/contract';
import type { Queryable } from '../../store/db.js';
import { type Backlog, insertEvent } from '../../store/queries/events.js';
import { type IntegrationRow, updateIntegration } from '../../store/queries/integrations.js';
import type { Identity } from '../shared/identity.js';

/** The integration as the API shows it; every one reports the contract's permission (see the contract). */
export function integrationRecord({ id, slug, transport, endpoint, status }: IntegrationRow): Integration {
  return { id, slug, transport, endpoint, status, permission: INTEGRATION_PERMISSION };
}

export async function recordEvent(
  tx: Queryable,
  identity: Identity,
  event: Extract<CatalogueEvent, { type: `integration.${string}` }>,
  now: number,
  backlog: Backlog = 'refuse',
) {
  await insertEvent(
    tx,
    { ...event, workspaceId: identity.workspace_id, identity: identity.slug, createdAt: now },
    backlog,
  );
}

/**
 * The ceremony is over: its verifier and state are forgotten, and `integration.authorized` recorded,
 * whatever the workspace's delivery backlog: the caller refused over it before the code was traded.
 */
export async function recordAuthorized(tx: Queryable, row: IntegrationRow, now: number): Promise<void> {
  await updateIntegration(tx, row.id, { oauth_verifier_enc: null, oauth_state: null, updated_at: now });
  const identity = await tx.query<{ slug: string }>('SELECT slug FROM identities WHERE id = $1', [
    row.identity_id,
  ]);
  const slug = identity[0]?.slug ?? '';
  const owner = { id: row.identity_id, workspace_id: row.workspace_id, slug };
  const authorized = { type: 'integration.authorized', data: { integration: row.slug } } as const;
  await recordEvent(tx, owner, authorized, now, 'admitted');
}
