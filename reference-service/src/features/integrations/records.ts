import { INTEGRATION_PERMISSION, type Integration } from '@svc-kit/contract';
import type { Queryable } from '../../store/db.js';
import { insertEvent } from '../../store/queries/events.js';
import type { IntegrationRow } from '../../store/queries/integrations.js';

export type Identity = { id: string; workspace_id: string; slug: string };

/** The integration as the API shows it; every one reports the contract's permission (see the contract). */
export function integrationRecord(row: IntegrationRow): Integration {
  return {
    id: row.id,
    slug: row.slug,
    transport: row.transport,
    endpoint: row.endpoint,
    status: row.status,
    permission: INTEGRATION_PERMISSION,
  };
}

export async function recordEvent(
  tx: Queryable,
  identity: Identity,
  type: 'integration.created' | 'integration.exposure_updated' | 'integration.deleted',
  data: Record<string, unknown>,
) {
  await insertEvent(tx, { workspaceId: identity.workspace_id, identity: identity.slug, type, data });
}
