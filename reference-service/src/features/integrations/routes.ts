import { EXPOSURE_WRITES, exposureProblem } from '@svc-kit/contract';
import { limitBucket } from '../../domain/door-limits.js';
import { ServiceError } from '../../domain/errors.js';
import { spendBudget } from '../../http/budget-guard.js';
import { answer, type OperationTable } from '../../http/operations.js';
import type { Queryable } from '../../store/db.js';
import {
  deleteIntegrationRow,
  getIntegration,
  listIntegrationRows,
  updateIntegration,
} from '../../store/queries/integrations.js';
import { forIdentity, identityOf } from '../shared/identity.js';
import { createIntegrationFor } from './create.js';
import { startAuthorization } from './oauth-ceremony.js';
import { integrationRecord, recordEvent } from './records.js';
import { catalogOf, entriesOf, staleTools } from './rules.js';
import { type IntegrationService, spendExchange } from './service.js';

/** The identity of the path and its integration `name`, read locked when asked. */
async function integrationAt(
  db: Queryable,
  workspaceId: string,
  at: { slug: string; name: string },
  lock = false,
) {
  const identity = await identityOf(db, workspaceId, at.slug);
  const row = await getIntegration(db, identity.id, at.name, lock);
  if (!row) throw new ServiceError('not_found', 'no such integration');
  return { identity, row };
}

/**
 * The identity's integration operations (spec 4.3). Statuses and their moves: this folder's README. The
 * three that call the upstream run in mode `own`: their short transactions never span the call (PGlite
 * has one connection, and an upstream may be this very service).
 */
export function integrationRoutes(service: IntegrationService) {
  return {
    // Reads only, on the handle given (on PostgreSQL its first statement may confirm the caller's key).
    listIntegrations: {
      transaction: 'none',
      run: forIdentity(async ({ db }, identity) => {
        const rows = await listIntegrationRows(db, identity.id);
        return answer('listIntegrations', 200, { integrations: rows.map(integrationRecord) });
      }),
    },
    createIntegration: {
      transaction: 'own',
      run: forIdentity(async ({ db, body, now, request }, identity) => {
        const created = await createIntegrationFor(service, db, identity, body, now, request.log);
        return answer('createIntegration', 201, created);
      }),
    },
    authorizeIntegration: {
      transaction: 'own',
      run: async ({ db, workspace, params, body, now }) => {
        const { row } = await integrationAt(db, workspace.id, params);
        if (row.auth_enc !== null) {
          throw new ServiceError(
            'invalid_request',
            'this integration uses a static credential; delete it and connect it again to use OAuth',
          );
        }
        await spendExchange(db, workspace.id, now);
        const url = await startAuthorization(service, db, row, body.scope, now);
        return answer('authorizeIntegration', 200, { authorization_url: url });
      },
    },
    getExposure: {
      transaction: 'own',
      run: async ({ db, workspace, params, now }) => {
        const { row } = await integrationAt(db, workspace.id, params);
        // The catalog is refreshed on each read, so that a vanished tool shows as stale; an upstream that
        // cannot be reached leaves the last catalog in place (and the status says why).
        await spendExchange(db, workspace.id, now);
        await service.refresh(row, now, { db });
        const { row: current } = await integrationAt(db, workspace.id, params);
        return answer('getExposure', 200, {
          catalog: catalogOf(current).map((tool) => ({ ...tool })),
          entries: entriesOf(current).map((entry) => ({ ...entry })),
          version: current.exposure_version,
          stale: staleTools(current),
        });
      },
    },
    // Mode `one`: `db` is a transaction, so the locked read, the update and the event commit together.
    setExposure: {
      transaction: 'one',
      run: async ({ db, workspace, params, body, now }) => {
        const { identity, row } = await integrationAt(db, workspace.id, params, true);
        // The contract's exposure limits (500 entries, 256 KiB, a tool once, valid mapped names), as a 400.
        const problem = exposureProblem(body.entries);
        if (problem !== undefined) throw new ServiceError('invalid_request', problem);
        await spendBudget(db, limitBucket('exposure-writes', workspace.id), EXPOSURE_WRITES, now);
        const version = row.exposure_version + 1;
        await updateIntegration(db, row.id, {
          exposure: JSON.stringify(body.entries),
          exposure_version: version,
          updated_at: now,
        });
        const updated = {
          type: 'integration.exposure_updated',
          data: { integration: row.slug, version },
        } as const;
        await recordEvent(db, identity, updated, now);
        return answer('setExposure', 200, { version });
      },
    },
    // Mode `one`, as setExposure.
    deleteIntegration: {
      transaction: 'one',
      run: async ({ db, workspace, params, now }) => {
        const { identity, row } = await integrationAt(db, workspace.id, params, true);
        // No session is held open between requests, so deleting the row (and with it the sealed credential,
        // OAuth registration, tokens and verifier) is the disconnection.
        await deleteIntegrationRow(db, row.id);
        // Never refused by the delivery backlog: removing is how an owner stops what floods them, and a row
        // is deleted once (creating one is checked).
        const deleted = { type: 'integration.deleted', data: { integration: row.slug } } as const;
        await recordEvent(db, identity, deleted, now, 'admitted');
        return answer('deleteIntegration', 200, null);
      },
    },
  } satisfies OperationTable;
}
