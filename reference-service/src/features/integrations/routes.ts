import { exposureProblem, type Operations } from '@svc-kit/contract';
import { ServiceError } from '../../domain/errors.js';
import { answer, type OperationHandler } from '../../http/operations.js';
import type { Db, Queryable } from '../../store/db.js';
import { findIdentityBySlug } from '../../store/queries/identity-keys.js';
import {
  deleteIntegrationRow,
  getIntegration,
  type IntegrationRow,
  listIntegrationRows,
  updateIntegration,
} from '../../store/queries/integrations.js';
import { createIntegrationFor } from './create.js';
import { catalogOf, entriesOf, staleTools } from './exposure.js';
import { type Identity, integrationRecord, recordEvent } from './records.js';
import type { IntegrationService } from './service.js';
import { UpstreamFailure } from './upstream.js';

// Every integration operation may call the upstream: mode `own`, given the database (operations.ts).
type Op<Id extends keyof Operations> = OperationHandler<Operations[Id], Db>;

/** The contract's exposure limits (500 entries, 256 KiB, a tool once, valid mapped names), as a 400. */
function checkEntries(entries: readonly { tool: string; mode: string; [key: string]: unknown }[]) {
  const problem = exposureProblem(entries);
  if (problem !== undefined) throw new ServiceError('invalid_request', problem);
}

/** The identity's 6 integration operations (spec 4.3). Statuses and their moves: README, "Integrations". */
export function integrationRoutes(service: IntegrationService) {
  async function identityOf(db: Queryable, workspaceId: string, slug: string): Promise<Identity> {
    const identity = await findIdentityBySlug(db, workspaceId, slug);
    if (!identity) throw new ServiceError('not_found', 'no such identity');
    return identity;
  }

  async function integrationOf(db: Queryable, identity: Identity, name: string): Promise<IntegrationRow> {
    const row = await getIntegration(db, identity.id, name);
    if (!row) throw new ServiceError('not_found', 'no such integration');
    return row;
  }

  const listIntegrations: Op<'listIntegrations'> = async ({ db, workspace, params }) => {
    const identity = await identityOf(db, workspace.id, params.slug);
    const rows = await listIntegrationRows(db, identity.id);
    return answer('listIntegrations', 200, { integrations: rows.map(integrationRecord) });
  };

  const createIntegration: Op<'createIntegration'> = async ({
    db,
    workspace,
    params,
    body,
    now,
    request,
  }) => {
    const identity = await identityOf(db, workspace.id, params.slug);
    const created = await createIntegrationFor(service, db, identity, body, now, request.log);
    return answer('createIntegration', 201, created);
  };

  const authorizeIntegration: Op<'authorizeIntegration'> = async ({ db, workspace, params, body }) => {
    const identity = await identityOf(db, workspace.id, params.slug);
    const row = await integrationOf(db, identity, params.name);
    if (row.auth_enc !== null) {
      throw new ServiceError(
        'invalid_request',
        'this integration uses a static credential; delete it and connect it again to use OAuth',
      );
    }
    let url: string;
    try {
      url = await service.startAuthorization(row, service.redirectUri(), body.scope);
    } catch (error) {
      // An upstream that fails or does not speak OAuth: 502, with the words of classifyFailure only.
      if (!(error instanceof UpstreamFailure)) throw error;
      throw new ServiceError(
        'upstream_failed',
        `the upstream’s OAuth could not be started: ${error.message}`,
      );
    }
    return answer('authorizeIntegration', 200, { authorization_url: url });
  };

  const getExposure: Op<'getExposure'> = async ({ db, workspace, params, now }) => {
    const identity = await identityOf(db, workspace.id, params.slug);
    const row = await integrationOf(db, identity, params.name);
    // The catalog is refreshed on each read, so that a vanished tool shows as stale; an upstream that
    // cannot be reached leaves the last catalog in place (and the status says why).
    await service.refresh(row, now);
    const current = await integrationOf(db, identity, params.name);
    return answer('getExposure', 200, {
      catalog: catalogOf(current).map((tool) => ({ ...tool })),
      entries: entriesOf(current).map((entry) => ({ ...entry })),
      version: current.exposure_version,
      stale: staleTools(current),
    });
  };

  const setExposure: Op<'setExposure'> = async ({ db, workspace, params, body, now }) => {
    const identity = await identityOf(db, workspace.id, params.slug);
    await integrationOf(db, identity, params.name);
    checkEntries(body.entries);
    const version = await db.transaction(async (tx) => {
      const row = await getIntegration(tx, identity.id, params.name, true);
      if (!row) throw new ServiceError('not_found', 'no such integration');
      const next = row.exposure_version + 1;
      await updateIntegration(tx, row.id, {
        exposure: JSON.stringify(body.entries),
        exposure_version: next,
        updated_at: now,
      });
      await recordEvent(tx, identity, 'integration.exposure_updated', {
        integration: row.slug,
        version: next,
      });
      return next;
    });
    return answer('setExposure', 200, { version });
  };

  const deleteIntegration: Op<'deleteIntegration'> = async ({ db, workspace, params }) => {
    const identity = await identityOf(db, workspace.id, params.slug);
    await integrationOf(db, identity, params.name);
    // No session is held open between requests, so deleting the row (and with it the sealed credential,
    // OAuth registration, tokens and verifier) is the disconnection.
    await db.transaction(async (tx) => {
      const row = await getIntegration(tx, identity.id, params.name, true);
      if (!row) throw new ServiceError('not_found', 'no such integration');
      await deleteIntegrationRow(tx, row.id);
      await recordEvent(tx, identity, 'integration.deleted', { integration: row.slug });
    });
    return answer('deleteIntegration', 200, null);
  };

  const own = <H>(run: H) => ({ transaction: 'own' as const, run });
  return {
    listIntegrations: own(listIntegrations),
    createIntegration: own(createIntegration),
    authorizeIntegration: own(authorizeIntegration),
    getExposure: own(getExposure),
    setExposure: own(setExposure),
    deleteIntegration: own(deleteIntegration),
  };
}
