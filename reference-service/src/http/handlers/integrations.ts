import type { Integration, Operations } from '@svc-kit/contract';
import { ServiceError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { checkWebhookUrl } from '../../domain/url-policy.js';
import { catalogOf, entriesOf, staleTools } from '../../integrations/exposure.js';
import { authBinding, type IntegrationService } from '../../integrations/service.js';
import type { UpstreamFailure } from '../../integrations/upstream.js';
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
type Op<Id extends keyof Operations> = OperationHandler<Operations[Id]>;

/**
 * The contact permission a contact of the identity needs to call an integration's exposed tools (listing
 * them needs `tools:list`). Every integration reports the same one: the gate is per contact, the exposure
 * says which tools.
 */
export const INTEGRATION_PERMISSION = 'tools:call';

const SLUG = /^[a-z0-9][a-z0-9-]{1,31}$/;
/** Names a `mapped` entry may give a tool: what MCP clients accept as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const MAX_ENTRIES = 500;

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

/** A default slug from the endpoint's host: `mcp.example.com` → `mcp-example-com`, cut to 32. */
function slugFromEndpoint(endpoint: string): string {
  const host = new URL(endpoint).hostname.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const slug = host
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/, '');
  return slug.length >= 2 ? slug : `mcp-${slug}`.slice(0, 32);
}

async function recordEvent(
  tx: Parameters<typeof insertEvent>[0],
  identity: Identity,
  type: 'integration.created' | 'integration.exposure_updated' | 'integration.deleted',
  data: Record<string, unknown>,
) {
  await insertEvent(tx, { workspaceId: identity.workspace_id, identity: identity.slug, type, data });
}

function checkEntries(entries: readonly { tool: string; mode: string; [key: string]: unknown }[]) {
  if (entries.length > MAX_ENTRIES) {
    throw new ServiceError('invalid_request', `an exposure holds at most ${MAX_ENTRIES} entries`);
  }
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    if (entry.tool.length === 0 || entry.tool.length > 128) {
      throw new ServiceError('invalid_request', `entries[${index}].tool must be 1 to 128 characters`);
    }
    if (seen.has(entry.tool)) {
      throw new ServiceError(
        'invalid_request',
        `entries[${index}] names the tool ${entry.tool} a second time`,
      );
    }
    seen.add(entry.tool);
    for (const field of ['name', 'description'] as const) {
      if (entry[field] !== undefined && typeof entry[field] !== 'string') {
        throw new ServiceError('invalid_request', `entries[${index}].${field} must be a string`);
      }
    }
    if (typeof entry.name === 'string' && !TOOL_NAME.test(entry.name)) {
      throw new ServiceError(
        'invalid_request',
        `entries[${index}].name must be 1 to 128 letters, digits, '_', '.' or '-'`,
      );
    }
  }
  if (JSON.stringify(entries).length > 256 * 1024) {
    throw new ServiceError('invalid_request', 'the exposure is too large (at most 256 KiB of JSON)');
  }
}

/** The identity's 6 integration operations (spec 4.3). Statuses and their moves: README, "Integrations". */
export function integrationHandlers(service: IntegrationService) {
  const db = service.db;

  async function identityOf(workspaceId: string, slug: string): Promise<Identity> {
    const identity = await findIdentityBySlug(db, workspaceId, slug);
    if (!identity) throw new ServiceError('not_found', 'no such identity');
    return identity;
  }

  async function integrationOf(identity: Identity, name: string): Promise<IntegrationRow> {
    const row = await getIntegration(db, identity.id, name);
    if (!row) throw new ServiceError('not_found', 'no such integration');
    return row;
  }

  const listIntegrations: Op<'listIntegrations'> = async ({ workspace, params }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const rows = await listIntegrationRows(db, identity.id);
    return answer('listIntegrations', 200, { integrations: rows.map(integrationRecord) });
  };

  const createIntegration: Op<'createIntegration'> = async ({ workspace, params, body, now }) => {
    const identity = await identityOf(workspace.id, params.slug);
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
    const verdict = await checkWebhookUrl(endpoint, {
      resolve: service.resolveHost,
      allowLocalhost: service.settings.allowLocalhost,
    });
    if (!verdict.ok) throw new ServiceError('invalid_request', `the endpoint is refused: ${verdict.reason}`);
    const slug = body.slug ?? body.catalogue ?? slugFromEndpoint(endpoint);
    if (!SLUG.test(slug)) {
      throw new ServiceError(
        'invalid_request',
        'slug must be 2 to 32 lowercase letters, digits or dashes, starting with a letter or digit',
      );
    }
    const id = newId('int');
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
      await recordEvent(tx, identity, 'integration.created', { integration: slug });
    });
    const redirectUri = service.redirectUri();
    let refreshed = await service.refresh(row, now, { redirectUri, mayStartAuthorization: true });
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
    const stored = await integrationOf(identity, slug);
    return answer('createIntegration', 201, {
      integration: integrationRecord(stored),
      tools: refreshed.tools?.length ?? 0,
      trouble: troubleOf(refreshed.failure),
      authorization_url: refreshed.authorizationUrl ?? null,
    });
  };

  const authorizeIntegration: Op<'authorizeIntegration'> = async ({ workspace, params, body }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const row = await integrationOf(identity, params.name);
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
      throw new ServiceError(
        'invalid_request',
        `the upstream’s OAuth could not be started: ${(error as Error).message}`,
      );
    }
    return answer('authorizeIntegration', 200, { authorization_url: url });
  };

  const getExposure: Op<'getExposure'> = async ({ workspace, params, now }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const row = await integrationOf(identity, params.name);
    // The catalog is refreshed on each read, so that a vanished tool shows as stale; an upstream that
    // cannot be reached leaves the last catalog in place (and the status says why).
    await service.refresh(row, now);
    const current = await integrationOf(identity, params.name);
    return answer('getExposure', 200, {
      catalog: catalogOf(current).map((tool) => ({ ...tool })),
      entries: entriesOf(current).map((entry) => ({ ...entry })),
      version: current.exposure_version,
      stale: staleTools(current),
    });
  };

  const setExposure: Op<'setExposure'> = async ({ workspace, params, body, now }) => {
    const identity = await identityOf(workspace.id, params.slug);
    await integrationOf(identity, params.name);
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

  const deleteIntegration: Op<'deleteIntegration'> = async ({ workspace, params }) => {
    const identity = await identityOf(workspace.id, params.slug);
    await integrationOf(identity, params.name);
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

  return {
    listIntegrations,
    createIntegration,
    authorizeIntegration,
    getExposure,
    setExposure,
    deleteIntegration,
  };
}

function troubleOf(failure: UpstreamFailure | undefined): string | null {
  return failure ? failure.message : null;
}
