import {
  authHeaderProblem,
  defaultIntegrationSlug,
  ID_PREFIXES,
  INTEGRATION_SLUG_PATTERN,
  INTEGRATION_SLUG_RULE,
  integrationCapRefusal,
  type Operations,
  type ResponseOf,
} from '@svc-kit/contract';
import type { FastifyBaseLogger } from 'fastify';
import { ServiceError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { localTargetHint } from '../../domain/local-targets.js';
import { checkWebhookUrl } from '../../domain/url-policy.js';
import type { OperationCall } from '../../http/operations.js';
import type { Db } from '../../store/db.js';
import { refuseOverBacklog } from '../../store/queries/backlog.js';
import {
  countIntegrationsLocked,
  deleteIntegrationRow,
  getIntegration,
  type IntegrationRow,
  insertIntegration,
} from '../../store/queries/integrations.js';
import type { Identity } from '../shared/identity.js';
import { integrationRecord, recordEvent } from './records.js';
import { authBinding, type IntegrationService, type Refreshed, spendExchange } from './service.js';
import { OverBound } from './upstream-failure.js';

/**
 * createIntegration (spec 4.3): checks the upstream's endpoint and credential, stores the row, tries the
 * upstream (Streamable HTTP, then SSE when no transport was named), and only then announces it.
 */
export async function createIntegrationFor(
  service: IntegrationService,
  db: Db,
  identity: Identity,
  body: OperationCall<Operations['createIntegration']>['body'],
  now: number,
  log: FastifyBaseLogger,
): Promise<ResponseOf<'createIntegration'>> {
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
  const headerProblem = body.auth ? authHeaderProblem(body.auth.header) : undefined;
  if (headerProblem) throw new ServiceError('invalid_request', headerProblem);
  // Before anything goes out (the endpoint's name is resolved next, then the upstream tried, an OAuth
  // client perhaps registered with it): once it has, the event is recorded whatever the backlog by then.
  await refuseOverBacklog(db, [identity.workspace_id], now);
  const verdict = await checkWebhookUrl(endpoint, {
    resolve: service.resolveHost,
    allowLocalhost: service.settings.allowLocalhost,
  });
  if (!verdict.ok) {
    const { allowLocalhost, reach } = service.settings;
    const hint = localTargetHint(endpoint, 'integrations', allowLocalhost, reach);
    throw new ServiceError('invalid_request', `the endpoint is refused: ${verdict.reason}${hint}`);
  }
  const slug = body.slug ?? body.catalogue ?? defaultIntegrationSlug(endpoint);
  if (!INTEGRATION_SLUG_PATTERN.test(slug)) {
    throw new ServiceError('invalid_request', `slug must be ${INTEGRATION_SLUG_RULE}`);
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
    const capped = integrationCapRefusal(await countIntegrationsLocked(tx, identity.id));
    if (capped) throw new ServiceError('forbidden', capped);
    await spendExchange(tx, identity.workspace_id, now);
    await insertIntegration(tx, row);
  });
  // The row must exist while the upstream is tried (an OAuth ceremony keeps its state in it), but the
  // creation is only announced once everything succeeded: a failure on the way removes the row, and
  // no `integration.created` event was ever recorded (nothing half-written is left behind).
  let refreshed: Refreshed;
  let stored: IntegrationRow;
  try {
    refreshed = await service.refresh(row, now, { db, mayStartAuthorization: true });
    // No transport named: an older server may speak only SSE. Tried once, when Streamable HTTP failed
    // for a reason other than authorization or reachability, or than an answer or catalog over its bound
    // (which says it was served).
    const failure = refreshed.failure;
    if (transport === undefined && failure?.status === 'error' && !(failure instanceof OverBound)) {
      const viaSse = await service.refresh(row, now, {
        db,
        transport: 'sse',
        mayStartAuthorization: true,
      });
      if (!viaSse.failure) refreshed = viaSse;
      else await service.recordFailure(row, failure, now, db);
    }
    stored = await db.transaction(async (tx) => {
      const created = { type: 'integration.created', data: { integration: slug } } as const;
      await recordEvent(tx, identity, created, now, 'admitted');
      const current = await getIntegration(tx, identity.id, slug);
      if (!current) throw new ServiceError('not_found', 'no such integration');
      return current;
    });
  } catch (error) {
    await deleteIntegrationRow(db, id).catch((cleanup: unknown) => {
      log.error({ err: cleanup }, 'could not remove a half-created integration');
    });
    throw error;
  }
  return {
    integration: integrationRecord(stored),
    tools: refreshed.tools?.length ?? 0,
    trouble: refreshed.failure?.message ?? null,
    authorization_url: refreshed.authorizationUrl ?? null,
  };
}
