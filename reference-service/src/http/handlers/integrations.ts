import {
  defaultIntegrationSlug,
  exposureProblem,
  ID_PREFIXES,
  INTEGRATION_PERMISSION,
  INTEGRATION_SLUG_PATTERN,
  type Integration,
  type Operations,
} from '@svc-kit/contract';
import { ServiceError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { checkWebhookUrl } from '../../domain/url-policy.js';
import { catalogOf, entriesOf, staleTools } from '../../integrations/exposure.js';
import { authBinding, type IntegrationService } from '../../integrations/service.js';
import { UpstreamFailure } from '../../integrations/upstream.js';
import type { Db, Queryable } from '../../store/db.js';
import { insertEvent } from '../../store/queries/events.js';
import { findIdentityBySlug } from '../../store/queries/identity-keys.js';
import {
  deleteIntegrationRow,
  getIntegration,
  type IntegrationRow,
  insertIntegration,
  listIntegrationRows,
  updateIntegration,
} from '../../store/queries/integrations.js';
import { answer, type OperationHandler } from '../operations.js';

type Identity = { id: string; workspace_id: string; slug: string };
// Every integration operation may call the upstream: mode `own`, given the database (operations.ts).
type Op<Id extends keyof Operations> = OperationHandler<Operations[Id], Db>;

/**
 * The contact permission a contact of the identity needs to call an integration's exposed tools (listing
 * them needs `tools:list`): the contract's, shared with the mock. Every integration reports the same one.
 */
export { INTEGRATION_PERMISSION };

/**
 * Headers a stored credential may not set: those that frame or route the request (a credential that sets
 * them could smuggle a second request to the upstream) and those the MCP transport sets itself.
 */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

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

async function recordEvent(
  tx: Parameters<typeof insertEvent>[0],
  identity: Identity,
  type: 'integration.created' | 'integration.exposure_updated' | 'integration.deleted',
  data: Record<string, unknown>,
) {
  await insertEvent(tx, { workspaceId: identity.workspace_id, identity: identity.slug, type, data });
}

/** The contract's exposure limits (500 entries, 256 KiB, a tool once, valid mapped names), as a 400. */
function checkEntries(entries: readonly { tool: string; mode: string; [key: string]: unknown }[]) {
  const problem = exposureProblem(entries);
  if (problem !== undefined) throw new ServiceError('invalid_request', problem);
}

/** The identity's 6 integration operations (spec 4.3). Statuses and their moves: README, "Integrations". */
export function integrationHandlers(service: IntegrationService) {
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
    let endpoint = body.endpoint;
    let transport = body.transport;
    if (body.catalogue !== undefined) {
      const entry = Object.hasOwn(service.settings.catalogue, body.catalogue)
        ? service.settings.catalogue[body.catalogue]
        : undefined;
      if (!entry)
        throw new ServiceError('invalid_request', `the catalogue has no entry named ${body.catalogue}`);
      if (endpoint !== undefined) {
        throw new ServiceError('invalid_request', 'give either catalogue or endpoint, not both');
      }
      endpoint = entry.endpoint;
      transport = transport ?? entry.transport;
    }
    if (endpoint === undefined) {
      throw new ServiceError('invalid_request', 'give the upstream’s endpoint, or a catalogue entry');
    }
    if (body.auth && RESERVED_HEADERS.has(body.auth.header.toLowerCase())) {
      throw new ServiceError(
        'invalid_request',
        `auth.header cannot be ${body.auth.header}: the connection sets that header itself`,
      );
    }
    const verdict = await checkWebhookUrl(endpoint, {
      resolve: service.resolveHost,
      allowLocalhost: service.settings.allowLocalhost,
    });
    if (!verdict.ok) throw new ServiceError('invalid_request', `the endpoint is refused: ${verdict.reason}`);
    const slug = body.slug ?? body.catalogue ?? defaultIntegrationSlug(endpoint);
    if (!INTEGRATION_SLUG_PATTERN.test(slug)) {
      throw new ServiceError(
        'invalid_request',
        'slug must be 2 to 32 lowercase letters, digits or dashes, starting with a letter or digit',
      );
    }
    const id = newId(ID_PREFIXES.integration);
    const row: IntegrationRow = {
      id,
      identity_id: identity.id,
      workspace_id: identity.workspace_id,
      slug,
      transport: transport ?? 'streamable-http',
      endpoint,
      catalogue: body.catalogue ?? null,
      status: 'unreachable',
      trouble: 'not connected yet',
      auth_enc: body.auth ? service.box.seal(JSON.stringify(body.auth), authBinding(id)) : null,
      oauth_client_enc: null,
      oauth_tokens_enc: null,
      oauth_verifier_enc: null,
      oauth_state: null,
      oauth_redirect_uri: null,
      catalog: '[]',
      exposure: '[]',
      exposure_version: 0,
      created_at: now,
      updated_at: now,
    };
    await db.transaction(async (tx) => {
      if (await getIntegration(tx, identity.id, slug)) {
        throw new ServiceError('invalid_request', `the identity already has an integration named ${slug}`);
      }
      await insertIntegration(tx, row);
    });
    // The row must exist while the upstream is tried (an OAuth ceremony keeps its state in it), but the
    // creation is only announced once everything succeeded: a failure on the way removes the row, and
    // no `integration.created` event was ever recorded (nothing half-written is left behind).
    let refreshed: Awaited<ReturnType<typeof service.refresh>>;
    let stored: IntegrationRow;
    try {
      const redirectUri = service.redirectUri();
      refreshed = await service.refresh(row, now, { redirectUri, mayStartAuthorization: true });
      // No transport named: an older server may speak only SSE. Tried once, when Streamable HTTP failed
      // for a reason other than authorization or reachability.
      if (transport === undefined && refreshed.failure?.status === 'error') {
        const viaSse = await service.refresh(row, now, {
          redirectUri,
          transport: 'sse',
          mayStartAuthorization: true,
        });
        if (!viaSse.failure) refreshed = viaSse;
        else if (refreshed.failure) await service.recordFailure(row, refreshed.failure, now);
      }
      stored = await db.transaction(async (tx) => {
        await recordEvent(tx, identity, 'integration.created', { integration: slug });
        const current = await getIntegration(tx, identity.id, slug);
        if (!current) throw new ServiceError('not_found', 'no such integration');
        return current;
      });
    } catch (error) {
      await deleteIntegrationRow(db, id).catch((cleanup: unknown) => {
        request.log.error({ err: cleanup }, 'could not remove a half-created integration');
      });
      throw error;
    }
    return answer('createIntegration', 201, {
      integration: integrationRecord(stored),
      tools: refreshed.tools?.length ?? 0,
      trouble: troubleOf(refreshed.failure),
      authorization_url: refreshed.authorizationUrl ?? null,
    });
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

function troubleOf(failure: UpstreamFailure | undefined): string | null {
  return failure ? failure.message : null;
}
