import {
  type ContactPreset,
  contactSchema,
  DEFAULT_PRESET,
  DEFAULT_TRUST,
  type ExposureEntry,
  exposureEntrySchema,
  INTEGRATION_PERMISSION,
  integrationSchema,
  newWebhookEndpoint,
  PERMISSIONS,
  type Permission,
  PRESET_PERMISSIONS,
  toolSchema,
  webhookDeliverySchema,
  webhookEndpointSchema,
} from '@svc-kit/contract';
import { isFingerprint } from '../cards/fingerprint.js';
import { isWellFormedApiKey } from '../http/credentials.js';
import { describeIssues, type Schema } from '../http/schema.js';
import type { IdSource } from '../random/ids.js';
import { type CredentialGrant, identityOf, type SandboxStore, type ToolDefinition } from './model.js';
import type { SandboxData, SeedCatalogueEntry, SeedTool } from './seed-types.js';

export const DEFAULT_AUTHORIZATION_URL = 'https://oauth.sandbox.invalid/authorize';
export const DEFAULT_INTEGRATION_PERMISSION: string = INTEGRATION_PERMISSION;

/** A seeded contact's switches default to those of its preset (none for a preset the contract does not name). */
function presetSwitches(preset: string | undefined): string[] {
  const name = preset ?? DEFAULT_PRESET;
  return Object.hasOwn(PRESET_PERMISSIONS, name) ? [...PRESET_PERMISSIONS[name as ContactPreset]] : [];
}

export interface SeedContext {
  ids: IdSource;
  now: number;
}

/** Bad seed data is the integrator's bug: say exactly which item and field, at seeding time. */
function check<T>(schema: Schema<T>, value: unknown, where: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new TypeError(`sandbox seed: ${where}: ${describeIssues(result.error.issues)}`);
  return result.data;
}

function fail(where: string, message: string): never {
  throw new TypeError(`sandbox seed: ${where}: ${message}`);
}

function permissionsOf(list: readonly Permission[] | undefined, where: string): ReadonlySet<Permission> {
  if (list === undefined) return new Set(PERMISSIONS);
  for (const permission of list) {
    if (!(PERMISSIONS as readonly string[]).includes(permission))
      fail(where, `unknown permission "${permission}"`);
  }
  return new Set(list);
}

export function toolOf(seed: SeedTool, where: string): ToolDefinition {
  const shown = check(
    toolSchema,
    {
      name: seed.name,
      description: seed.description ?? '',
      input_schema: seed.input_schema ?? { type: 'object' },
    },
    where,
  );
  return 'result' in seed ? { ...shown, result: seed.result } : shown;
}

function toolsOf(seeds: readonly SeedTool[] | undefined, where: string): ToolDefinition[] {
  const tools = (seeds ?? []).map((tool, index) => toolOf(tool, `${where}.tools[${index}]`));
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) fail(where, `tool "${tool.name}" is listed twice`);
    names.add(tool.name);
  }
  return tools;
}

function loadCredentials(store: SandboxStore, data: SandboxData): void {
  data.apiKeys?.forEach((seed, index) => {
    const where = `apiKeys[${index}]`;
    if (!isWellFormedApiKey(seed.key))
      fail(where, 'key must be svc_ + 16 lowercase hex + _ + 64 lowercase hex');
    store.keys ??= new Map();
    const grant: CredentialGrant = { permissions: permissionsOf(seed.permissions, where), steppedUp: false };
    store.keys.set(seed.key, grant);
  });
  data.sessions?.forEach((seed, index) => {
    const where = `sessions[${index}]`;
    if (seed.token.length === 0) fail(where, 'token must not be empty');
    store.sessions ??= new Map();
    store.sessions.set(seed.token, {
      permissions: permissionsOf(seed.permissions, where),
      steppedUp: seed.steppedUp ?? true,
    });
  });
}

function loadWebhooks(store: SandboxStore, data: SandboxData, { ids, now }: SeedContext): void {
  data.webhooks?.forEach((seed, index) => {
    const where = `webhooks[${index}]`;
    const { secret, ...fields } = seed;
    const record = check(
      webhookEndpointSchema,
      newWebhookEndpoint({ id: ids.id('webhookEndpoint'), events: [], ...fields }, now),
      where,
    );
    if (store.endpoints.has(record.id)) fail(where, `an endpoint with id "${record.id}" already exists`);
    store.endpoints.set(record.id, {
      record,
      secret: secret ?? ids.signingSecret(),
      previousSecret: null,
      removed: false,
    });
  });
  data.deliveries?.forEach((seed, index) => {
    const where = `deliveries[${index}]`;
    const record = check(
      webhookDeliverySchema,
      {
        id: ids.id('webhookDelivery'),
        event_id: ids.id('event'),
        event_type: 'message.received',
        attempt: 1,
        status: 'delivered',
        http_status: 200,
        latency_ms: 0,
        response_excerpt: null,
        next_attempt_at: null,
        created_at: now,
        ...seed,
      },
      where,
    );
    if (store.deliveries.some((delivery) => delivery.id === record.id)) {
      fail(where, `a delivery with id "${record.id}" already exists`);
    }
    store.deliveries.push(record);
  });
}

function loadIdentities(store: SandboxStore, data: SandboxData, { ids, now }: SeedContext): void {
  for (const [slug, seedIdentity] of Object.entries(data.identities ?? {})) {
    if (slug.length === 0) fail('identities', 'an identity slug must not be empty');
    const identity = identityOf(store, slug);
    seedIdentity.contacts?.forEach((seed, index) => {
      const where = `identities.${slug}.contacts[${index}]`;
      const { tools, reachable, declined, ...fields } = seed;
      if (!isFingerprint(seed.fingerprint))
        fail(where, 'fingerprint must be sha256: + 64 lowercase hex digits');
      if (identity.contacts.has(seed.fingerprint)) fail(where, `contact ${seed.fingerprint} already exists`);
      const record = check(
        contactSchema,
        {
          status: 'active',
          preset: DEFAULT_PRESET,
          permissions: presetSwitches(seed.preset),
          trust_flag: DEFAULT_TRUST,
          petname: '',
          last_seen_at: now,
          created_at: now,
          endpoint: `https://peers.sandbox.invalid/${seed.fingerprint.slice(7, 23)}`,
          address_claim: null,
          acceptance_unheard_since: null,
          ...fields,
        },
        where,
      );
      if (declined === true && record.status !== 'blocked')
        fail(where, 'declined applies to blocked contacts only');
      identity.contacts.set(record.fingerprint, {
        record,
        declined: declined ?? false,
        reachable: reachable ?? true,
        tools: toolsOf(tools, where),
      });
    });
    seedIdentity.integrations?.forEach((seed, index) => {
      const where = `identities.${slug}.integrations[${index}]`;
      const { tools, exposure, authorization_url, ...fields } = seed;
      const record = check(
        integrationSchema,
        {
          id: ids.id('integration'),
          transport: 'streamable-http',
          status: 'healthy',
          permission: DEFAULT_INTEGRATION_PERMISSION,
          ...fields,
        },
        where,
      );
      if (identity.integrations.has(record.slug)) fail(where, `integration "${record.slug}" already exists`);
      const entries: ExposureEntry[] = (exposure?.entries ?? []).map((entry, entryIndex) =>
        check(exposureEntrySchema, entry, `${where}.exposure.entries[${entryIndex}]`),
      );
      const version = exposure?.version ?? 0;
      if (!Number.isSafeInteger(version) || version < 0)
        fail(where, 'exposure.version must be a non-negative integer');
      identity.integrations.set(record.slug, {
        record,
        tools: toolsOf(tools, where),
        entries,
        version,
        credential: null,
        authorizationUrl: authorization_url ?? DEFAULT_AUTHORIZATION_URL,
      });
    });
  }
}

function loadCatalogue(store: SandboxStore, entries: readonly SeedCatalogueEntry[] | undefined): void {
  entries?.forEach((seed, index) => {
    const where = `catalogue[${index}]`;
    if (seed.slug.length < 2 || seed.slug.length > 32) fail(where, 'slug must be 2 to 32 characters');
    if (seed.endpoint.length === 0) fail(where, 'endpoint must not be empty');
    if (store.catalogue.has(seed.slug)) fail(where, `catalogue entry "${seed.slug}" already exists`);
    store.catalogue.set(seed.slug, {
      slug: seed.slug,
      endpoint: seed.endpoint,
      transport: seed.transport ?? 'streamable-http',
      tools: toolsOf(seed.tools, where),
      oauth: seed.oauth ?? false,
      authorizationUrl: seed.authorization_url ?? DEFAULT_AUTHORIZATION_URL,
    });
  });
}

/**
 * Adds seed data to the store. Records are completed with the values creation would give them and then
 * checked against the contract's schemas, so a seeded record is always one the service could answer.
 * Throws a `TypeError` naming the item and field on bad data; nothing is half-loaded, because the caller
 * loads into a copy and swaps it in only on success.
 */
export function loadSeed(store: SandboxStore, data: SandboxData, context: SeedContext): void {
  if (data.workspace) {
    const { webhooksEnabled, suspended, deletionHold } = data.workspace;
    if (webhooksEnabled !== undefined) store.workspace.webhooksEnabled = webhooksEnabled;
    if (suspended !== undefined) store.workspace.suspended = suspended;
    if (deletionHold !== undefined) store.workspace.deletionHold = deletionHold;
  }
  loadCredentials(store, data);
  loadWebhooks(store, data, context);
  loadCatalogue(store, data.catalogue);
  loadIdentities(store, data, context);
}
