import {
  AUTHORIZATION_NEEDED_TROUBLE,
  authHeaderProblem,
  checkWebhookUrlShape,
  defaultIntegrationSlug,
  exposureProblem,
  INTEGRATION_SLUG_PATTERN,
  INTEGRATION_SLUG_RULE,
  type Integration,
  integrationCapRefusal,
} from '@svc-kit/contract';
import { invalid, notFound, Refusal } from '../http/refusal.js';
import { DEFAULT_AUTHORIZATION_URL, DEFAULT_INTEGRATION_PERMISSION } from '../state/load-seed.js';
import { type CatalogueEntry, type IntegrationRow, identityOf, type SandboxStore } from '../state/model.js';
import { exposureOf } from '../state/records.js';
import type { Behaviours } from './behaviour.js';
import { spendExposureWrite } from './budgets.js';

function integrationRow(store: SandboxStore, slug: string, name: string): IntegrationRow {
  const row = store.identities.get(slug)?.integrations.get(name);
  if (!row) throw notFound('integration');
  return row;
}

function authorizationUrl(base: string, row: IntegrationRow, state: string, scope?: string): string {
  const url = new URL(base);
  url.searchParams.set('integration', row.record.id);
  url.searchParams.set('state', state);
  if (scope !== undefined && scope !== '') url.searchParams.set('scope', scope);
  return url.href;
}

function findUpstream(store: SandboxStore, catalogue: string | undefined, endpoint: string | undefined) {
  if (catalogue !== undefined) {
    const entry = store.catalogue.get(catalogue);
    if (!entry) throw invalid(`catalogue: no catalogue entry named "${catalogue}"`);
    return entry;
  }
  if (endpoint === undefined) throw invalid('give either catalogue or endpoint');
  // An address that matches a catalogue entry reaches the same upstream, tools included.
  return [...store.catalogue.values()].find((entry) => entry.endpoint === endpoint);
}

export const integrationBehaviours = {
  listIntegrations: ({ store, params }) => {
    const rows = [...(store.identities.get(params.slug)?.integrations.values() ?? [])];
    return { status: 200, body: { integrations: rows.map((row) => structuredClone(row.record)) } };
  },

  createIntegration: ({ store, params, body, ids }) => {
    const upstream: CatalogueEntry | undefined = findUpstream(store, body.catalogue, body.endpoint);
    if (body.catalogue !== undefined && body.endpoint !== undefined) {
      throw invalid('give either catalogue or endpoint, not both');
    }
    const endpoint = body.endpoint ?? upstream?.endpoint;
    if (endpoint === undefined) throw invalid('give either catalogue or endpoint');
    const headerProblem = body.auth ? authHeaderProblem(body.auth.header) : undefined;
    if (headerProblem !== undefined) throw invalid(headerProblem);
    // The service applies the webhook URL rules to an upstream address; the mock the part without DNS.
    const shape = body.endpoint === undefined ? undefined : checkWebhookUrlShape(body.endpoint);
    if (shape !== undefined && !shape.ok) throw invalid(`invalid endpoint: ${shape.reason}`);
    // As the service: the catalogue name, else the host; an endpoint that matches an entry is still named by host.
    const slug = body.slug ?? body.catalogue ?? defaultIntegrationSlug(endpoint);
    if (!INTEGRATION_SLUG_PATTERN.test(slug)) {
      throw invalid(`slug must be ${INTEGRATION_SLUG_RULE}`);
    }
    const identity = identityOf(store, params.slug);
    if (identity.integrations.has(slug)) throw invalid(`slug: an integration named "${slug}" already exists`);
    const capped = integrationCapRefusal(identity.integrations.size);
    if (capped !== undefined) throw new Refusal('forbidden', capped);
    const needsAuthorization = (upstream?.oauth ?? false) && (body.auth ?? null) === null;
    const record: Integration = {
      id: ids.id('integration'),
      slug,
      transport: body.transport ?? upstream?.transport ?? 'streamable-http',
      endpoint,
      status: needsAuthorization ? 'needs_authorization' : 'healthy',
      permission: DEFAULT_INTEGRATION_PERMISSION,
    };
    const row: IntegrationRow = {
      record,
      tools: [...(upstream?.tools ?? [])],
      entries: [],
      version: 0,
      credential: body.auth ? { ...body.auth } : null,
      authorizationUrl: upstream?.authorizationUrl ?? DEFAULT_AUTHORIZATION_URL,
    };
    identity.integrations.set(slug, row);
    return {
      status: 201,
      body: {
        integration: structuredClone(record),
        tools: row.tools.length,
        trouble: needsAuthorization ? AUTHORIZATION_NEEDED_TROUBLE : null,
        authorization_url: needsAuthorization
          ? authorizationUrl(row.authorizationUrl, row, ids.id('authorizationState'))
          : null,
      },
    };
  },

  authorizeIntegration: ({ store, params, body, ids }) => {
    const row = integrationRow(store, params.slug, params.name);
    return {
      status: 200,
      body: {
        authorization_url: authorizationUrl(
          row.authorizationUrl,
          row,
          ids.id('authorizationState'),
          body.scope,
        ),
      },
    };
  },

  getExposure: ({ store, params }) => ({
    status: 200,
    body: exposureOf(integrationRow(store, params.slug, params.name)),
  }),

  setExposure: ({ store, params, body, now }) => {
    const row = integrationRow(store, params.slug, params.name);
    const problem = exposureProblem(body.entries);
    if (problem !== undefined) throw invalid(problem);
    spendExposureWrite(store, now);
    row.entries = structuredClone(body.entries);
    row.version += 1;
    return { status: 200, body: { version: row.version } };
  },

  deleteIntegration: ({ store, params }) => {
    const row = integrationRow(store, params.slug, params.name);
    // The credential goes with the row: nothing of it stays in the sandbox.
    row.credential = null;
    store.identities.get(params.slug)?.integrations.delete(params.name);
    return { status: 200, body: null };
  },
} satisfies Pick<
  Behaviours,
  | 'listIntegrations'
  | 'createIntegration'
  | 'authorizeIntegration'
  | 'getExposure'
  | 'setExposure'
  | 'deleteIntegration'
>;
