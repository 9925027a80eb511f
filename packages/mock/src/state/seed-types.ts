import type {
  Contact,
  ExposureEntry,
  Integration,
  Permission,
  WebhookDelivery,
  WebhookEndpoint,
} from '@svc-kit/contract';
import type { ToolResult } from './model.js';

/** A tool a contact or an upstream offers. */
export interface SeedTool {
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  /** What callContactTool answers as `result`: a JSON value, or a function of the call's arguments
   * (a function that throws makes the call answer `ok: false`). Default: `{ tool, arguments }`. */
  result?: ToolResult;
}

/** A live API key. Once any key is seeded, only seeded keys are live and their permissions are enforced. */
export interface SeedApiKey {
  /** `svc_` + 16 lowercase hex + `_` + 64 lowercase hex, e.g. `SANDBOX_API_KEY`. */
  key: string;
  /** The key's effective permissions (its scopes). Default: every permission. */
  permissions?: readonly Permission[];
}

/** A live session. Once any session is seeded, only seeded session cookies are live. */
export interface SeedSession {
  /** The value of the `__Host-svc_session` cookie. */
  token: string;
  /** Default: every permission. */
  permissions?: readonly Permission[];
  /** Default `true`. A session that has not stepped up is refused createWebhook (403 `step_up_required`). */
  steppedUp?: boolean;
}

/** An endpoint; left-out fields get the values creation would give them. */
export type SeedWebhook = Partial<WebhookEndpoint> & {
  url: string;
  /** The current signing secret. Default: a fresh `whsec_…`. */
  secret?: string;
};

/** A delivery log row; left-out fields describe a first attempt delivered with HTTP 200. */
export type SeedDelivery = Partial<WebhookDelivery> & { endpoint_id: string };

export type SeedContact = Partial<Contact> & {
  /** `sha256:` + 64 hex digits; `sandboxFingerprint('label')` makes one. */
  fingerprint: string;
  display_name: string;
  /** The tools the contact offers (listContactTools, callContactTool). */
  tools?: readonly SeedTool[];
  /** Default `true`. `false`: the peer never answers (`notified: false`, refresh `unreachable`). */
  reachable?: boolean;
  /** For a `blocked` contact: it came from a declined request, so unblock forgets it. Default `false`. */
  declined?: boolean;
};

export type SeedIntegration = Partial<Integration> & {
  slug: string;
  endpoint: string;
  /** The upstream's tools: the exposure's catalog. */
  tools?: readonly SeedTool[];
  exposure?: { entries: readonly ExposureEntry[]; version?: number };
  /** Where authorizeIntegration sends the owner. */
  authorization_url?: string;
};

/** A connectable upstream: createIntegration with `catalogue: slug`, or with its `endpoint`. */
export interface SeedCatalogueEntry {
  slug: string;
  endpoint: string;
  /** Default `streamable-http`. */
  transport?: string;
  tools?: readonly SeedTool[];
  /** The upstream needs OAuth: creation answers status `needs_authorization` and an `authorization_url`. */
  oauth?: boolean;
  /** Base of the authorization URL. Default `https://oauth.sandbox.invalid/authorize`. */
  authorization_url?: string;
}

export interface SeedIdentity {
  contacts?: readonly SeedContact[];
  integrations?: readonly SeedIntegration[];
}

/** Data a sandbox starts with (`createSandbox({ data })`) or receives later (`sandbox.seed(data)`). */
export interface SandboxData {
  workspace?: {
    /** The `enabled` flag of listWebhooks. Default `true`. */
    webhooksEnabled?: boolean;
    /** Operations flagged `suspended` answer 403 `workspace_suspended`. Default `false`. */
    suspended?: boolean;
    /** Operations flagged `suspended` answer 403 `workspace_deletion_hold`. Default `false`. */
    deletionHold?: boolean;
  };
  apiKeys?: readonly SeedApiKey[];
  sessions?: readonly SeedSession[];
  webhooks?: readonly SeedWebhook[];
  deliveries?: readonly SeedDelivery[];
  /** Keyed by identity slug. Identities not named here exist too, empty. */
  identities?: Readonly<Record<string, SeedIdentity>>;
  catalogue?: readonly SeedCatalogueEntry[];
}
