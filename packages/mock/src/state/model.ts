import type {
  Contact,
  ExposureEntry,
  Integration,
  OutboundBucket,
  Permission,
  WebhookDelivery,
  WebhookEndpoint,
} from '@svc-kit/contract';

/** A JSON value, as a tool's fixed result. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** What a seeded tool answers when called: a fixed JSON value, or a function of the call's arguments. */
export type ToolResult = JsonValue | ((args: Readonly<Record<string, unknown>>) => unknown);

/** A tool as the sandbox keeps it: the API's tool fields and what calling it returns. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  /** Absent: calling the tool echoes `{ tool, arguments }`. */
  result?: ToolResult;
}

export interface EndpointRow {
  /** `rotating_until` is stored as set; the views show `null` once it has passed. */
  record: WebhookEndpoint;
  secret: string;
  previousSecret: string | null;
  /** Removed endpoints stay known so that their delivery log stays readable. */
  removed: boolean;
}

export interface ContactRow {
  record: Contact;
  /** A blocked row that came from a declined request: unblocking forgets it instead of restoring it. */
  declined: boolean;
  /** `false`: the peer never answers (notified `false`, refresh `unreachable`). */
  reachable: boolean;
  tools: ToolDefinition[];
}

export interface IntegrationRow {
  record: Integration;
  tools: ToolDefinition[];
  entries: ExposureEntry[];
  version: number;
  /** Kept only to be forgotten on delete; never shown. */
  credential: { header: string; value: string } | null;
  /** Where authorizeIntegration sends the owner. */
  authorizationUrl: string;
}

export interface CatalogueEntry {
  slug: string;
  endpoint: string;
  transport: string;
  tools: ToolDefinition[];
  /** The upstream needs an OAuth ceremony before it is usable. */
  oauth: boolean;
  authorizationUrl: string;
}

export interface IdentityState {
  contacts: Map<string, ContactRow>;
  integrations: Map<string, IntegrationRow>;
}

export interface CredentialGrant {
  permissions: ReadonlySet<Permission>;
  steppedUp: boolean;
}

export interface WorkspaceState {
  webhooksEnabled: boolean;
  suspended: boolean;
  deletionHold: boolean;
}

/** The whole sandbox: one workspace, its webhooks, and its identities (created on first use). */
export interface SandboxStore {
  workspace: WorkspaceState;
  /** `null`: any well-formed key is live with every permission. */
  keys: Map<string, CredentialGrant> | null;
  /** `null`: any non-empty session cookie is a stepped-up session with every permission. */
  sessions: Map<string, CredentialGrant> | null;
  endpoints: Map<string, EndpointRow>;
  deliveries: WebhookDelivery[];
  identities: Map<string, IdentityState>;
  catalogue: Map<string, CatalogueEntry>;
  /** The budgets (token buckets: outbound calls, filtered log reads) by bucket name, as the service keeps them. */
  budgets: Map<string, OutboundBucket>;
}

export function emptyStore(): SandboxStore {
  return {
    workspace: { webhooksEnabled: true, suspended: false, deletionHold: false },
    keys: null,
    sessions: null,
    endpoints: new Map(),
    deliveries: [],
    identities: new Map(),
    catalogue: new Map(),
    budgets: new Map(),
  };
}

/** An identity's state, created empty the first time its slug is used. */
export function identityOf(store: SandboxStore, slug: string): IdentityState {
  let identity = store.identities.get(slug);
  if (!identity) {
    identity = { contacts: new Map(), integrations: new Map() };
    store.identities.set(slug, identity);
  }
  return identity;
}

const copy = <T>(value: T): T => structuredClone(value);

/** A deep copy of the data (tool results, which may be functions, are shared: the sandbox never mutates them). */
export function cloneStore(store: SandboxStore): SandboxStore {
  const identities = new Map<string, IdentityState>();
  for (const [slug, identity] of store.identities) {
    identities.set(slug, {
      contacts: new Map(
        [...identity.contacts].map(([key, row]) => [
          key,
          { ...row, record: copy(row.record), tools: [...row.tools] },
        ]),
      ),
      integrations: new Map(
        [...identity.integrations].map(([key, row]) => [
          key,
          { ...row, record: copy(row.record), tools: [...row.tools], entries: copy(row.entries) },
        ]),
      ),
    });
  }
  return {
    workspace: { ...store.workspace },
    keys: store.keys && new Map(store.keys),
    sessions: store.sessions && new Map(store.sessions),
    endpoints: new Map([...store.endpoints].map(([key, row]) => [key, { ...row, record: copy(row.record) }])),
    deliveries: copy(store.deliveries),
    identities,
    catalogue: new Map(
      [...store.catalogue].map(([key, entry]) => [key, { ...entry, tools: [...entry.tools] }]),
    ),
    budgets: new Map([...store.budgets].map(([key, bucket]) => [key, { ...bucket }])),
  };
}
