import { type OutboundLimit, TOOLS_CALL_PERMISSION } from './contacts.js';

/** Every integration's `permission`: the contact switch needed to call the tools it exposes. */
export const INTEGRATION_PERMISSION = TOOLS_CALL_PERMISSION;

/**
 * setExposure calls of a workspace (our choice): 30, then one every 5 seconds, 429 past it. Each rewrites up
 * to 256 KiB on the row, and a person edits an exposure a few times a minute; unbudgeted, one key wrote
 * 20 MB a second. Spent once the entries are found valid, by the service and the mock alike.
 */
export const EXPOSURE_WRITES: OutboundLimit = {
  capacity: 30,
  perMs: 1 / 5_000,
  what: 'exposure changes in this workspace',
};

/** How long an integration slug may be, in characters. */
export const INTEGRATION_SLUG_LENGTH = { min: 2, max: 32 } as const;

/** An integration slug: 2 to 32 of `a-z`, `0-9` and `-`, not starting with `-`. */
export const INTEGRATION_SLUG_PATTERN = new RegExp(
  `^[a-z0-9][a-z0-9-]{${INTEGRATION_SLUG_LENGTH.min - 1},${INTEGRATION_SLUG_LENGTH.max - 1}}$`,
);

/** `INTEGRATION_SLUG_PATTERN` in words, for refusals and for the forms that ask for a slug. */
export const INTEGRATION_SLUG_RULE = `${INTEGRATION_SLUG_LENGTH.min} to ${INTEGRATION_SLUG_LENGTH.max} lowercase letters (a-z), digits or dashes, not starting with a dash`;

/** Names a `mapped` exposure entry may give a tool: what MCP clients accept as a tool name. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export const EXPOSURE_LIMITS = {
  /** Entries in one exposure. */
  maxEntries: 500,
  /** Length of an entry's `tool`. */
  maxToolLength: 128,
  /** Size of the entries as JSON text. */
  maxBytes: 256 * 1024,
} as const;

/**
 * The slug an integration gets when the caller names none and no catalogue entry names it: the endpoint's
 * host with every run of other characters as `-`, cut to 32 (`mcp.example.com` → `mcp-example-com`).
 */
export function defaultIntegrationSlug(endpoint: string): string {
  const host = new URL(endpoint).hostname.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const slug = host
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/, '');
  return slug.length >= 2 ? slug : `mcp-${slug}`.slice(0, 32);
}

/**
 * Headers an integration's stored credential (`auth.header`) may not name, lower case: those that frame or
 * route the request (a credential that set them could smuggle a second request to the upstream) and those
 * the MCP transport sets itself.
 */
export const RESERVED_AUTH_HEADERS: ReadonlySet<string> = new Set([
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

/** Why `auth.header` cannot carry the credential (400 `invalid_request`), or `undefined`. Any case. */
export function authHeaderProblem(header: string): string | undefined {
  if (!RESERVED_AUTH_HEADERS.has(header.toLowerCase())) return undefined;
  return `auth.header cannot be ${header}: the connection sets that header itself`;
}

type Entry = { tool: string; mode: string; [key: string]: unknown };

/**
 * Why an exposure's entries cannot be stored, or `undefined`. Beyond the schema: at most 500 entries, a
 * tool named once, `name` and `description` strings, a `name` that is a valid tool name, 256 KiB in all.
 */
export function exposureProblem(entries: readonly Entry[]): string | undefined {
  if (entries.length > EXPOSURE_LIMITS.maxEntries) {
    return `an exposure holds at most ${EXPOSURE_LIMITS.maxEntries} entries`;
  }
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    if (entry.tool.length === 0 || entry.tool.length > EXPOSURE_LIMITS.maxToolLength) {
      return `entries[${index}].tool must be 1 to ${EXPOSURE_LIMITS.maxToolLength} characters`;
    }
    if (seen.has(entry.tool)) return `entries[${index}] names the tool ${entry.tool} a second time`;
    seen.add(entry.tool);
    for (const field of ['name', 'description'] as const) {
      if (entry[field] !== undefined && typeof entry[field] !== 'string') {
        return `entries[${index}].${field} must be a string`;
      }
    }
    if (typeof entry.name === 'string' && !TOOL_NAME_PATTERN.test(entry.name)) {
      return `entries[${index}].name must be 1 to 128 letters, digits, '_', '.' or '-'`;
    }
  }
  if (JSON.stringify(entries).length > EXPOSURE_LIMITS.maxBytes) {
    return `the exposure is too large (at most ${EXPOSURE_LIMITS.maxBytes / 1024} KiB of JSON)`;
  }
  return undefined;
}

/**
 * Integrations one identity may have. Each creation makes outbound requests to the upstream it names
 * (discovery, registration): without a cap, a sandbox open to strangers sends them anywhere in bulk.
 */
/** `trouble` of an integration whose upstream waits for its owner to authorize it (OAuth). */
export const AUTHORIZATION_NEEDED_TROUBLE = 'the upstream asks for authorization (OAuth)';

export const MAX_INTEGRATIONS_PER_IDENTITY = 20;

/** The words of the refusal (403 `forbidden`) when an identity already has its integrations. */
export function integrationCapRefusal(count: number): string | undefined {
  if (count < MAX_INTEGRATIONS_PER_IDENTITY) return undefined;
  return `an identity may have ${MAX_INTEGRATIONS_PER_IDENTITY} integrations; delete one before creating another`;
}
