import type { ExposureEntry, Tool } from '@svc-kit/contract';
import { budget } from '../../domain/door-limits.js';
import { MAX_PEER_BODY_BYTES } from '../../peer/protocol.js';
import type { IntegrationRow } from '../../store/queries/integrations.js';

// The integration rules without I/O. The statuses an exchange leaves are classifyFailure's
// (upstream-failure.ts, beside the transport errors it reads); the exposure limits and
// EXPOSURE_WRITES are the contract's.

/**
 * Exchanges with upstreams a workspace's own calls start (createIntegration, getExposure, which re-lists the
 * tools on every read, authorizeIntegration): 60, then one every 10 seconds. Each is several requests to a
 * host the workspace names and up to a 1 MiB catalog parsed and rewritten (space PGlite reuses only after the
 * next retention pass); unbudgeted, one key made the service dial as fast as it sent requests. The portal
 * reads an exposure when its editor opens. A contact's tool call is bounded by the peer budgets instead;
 * every exchange also spends its host's budget (domain/upstream-host-limits.ts).
 */
export const UPSTREAM_EXCHANGES = budget(60, 10_000, 'exchanges with upstreams started by this workspace');

export function catalogOf(row: IntegrationRow): Tool[] {
  return JSON.parse(row.catalog) as Tool[];
}

export function entriesOf(row: IntegrationRow): ExposureEntry[] {
  return JSON.parse(row.exposure) as ExposureEntry[];
}

/** Tools named by an entry that the upstream no longer lists (in entry order, each once). */
export function staleTools(row: IntegrationRow): string[] {
  const present = new Set(catalogOf(row).map((tool) => tool.name));
  return [...new Set(entriesOf(row).map((entry) => entry.tool))].filter((tool) => !present.has(tool));
}

/** A tool a contact may reach, and where it leads. */
export interface OfferedTool extends Tool {
  integration: IntegrationRow;
  /** The tool's name upstream (differs from `name` in `mapped` mode). */
  upstreamName: string;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;

/**
 * What an identity offers its contacts, from every integration's exposure, oldest integration first:
 * - `passthrough`: the upstream tool as it is;
 * - `mapped`: the same tool under the entry's `name` (and `description`, if given);
 * - `agent`: reserved for tools the identity's agent answers itself; the reference service has no agent,
 *   so these are not offered.
 * An entry whose tool vanished upstream (stale) is not offered. When two entries give the same name, the
 * first one wins.
 */
export function offeredTools(rows: readonly IntegrationRow[]): OfferedTool[] {
  const offered = new Map<string, OfferedTool>();
  for (const row of rows) {
    const catalog = new Map(catalogOf(row).map((tool) => [tool.name, tool]));
    for (const entry of entriesOf(row)) {
      const upstream = catalog.get(entry.tool);
      if (!upstream || entry.mode === 'agent') continue;
      const name = entry.mode === 'mapped' ? (text(entry.name) ?? upstream.name) : upstream.name;
      if (offered.has(name)) continue;
      offered.set(name, {
        name,
        description:
          entry.mode === 'mapped' ? (text(entry.description) ?? upstream.description) : upstream.description,
        input_schema: upstream.input_schema,
        integration: row,
        upstreamName: upstream.name,
      });
    }
  }
  return [...offered.values()];
}

/** Bounds of what an upstream's catalog may hold, each in characters of JSON (the stored catalog's text). */
export const CATALOG_BOUNDS = {
  toolName: 128,
  toolDescription: 8 * 1024,
  toolSchema: 32 * 1024,
  catalog: 1024 * 1024,
} as const;

/**
 * Counts a catalog as its tools are listed: the first tool over a bound, or the tool that takes the whole
 * catalog over its bound, is named in our words (never the upstream's text), and the listing fails, so
 * what is stored and shown by getExposure stays small.
 */
export class CatalogBound {
  #chars = 2;

  add(tool: Tool): string | undefined {
    if (tool.name.length > CATALOG_BOUNDS.toolName) {
      return `a tool of the upstream has a name over ${CATALOG_BOUNDS.toolName} characters`;
    }
    if (tool.description.length > CATALOG_BOUNDS.toolDescription) {
      return `a tool of the upstream has a description over ${CATALOG_BOUNDS.toolDescription} characters`;
    }
    const schema = JSON.stringify(tool.input_schema) ?? '';
    if (schema.length > CATALOG_BOUNDS.toolSchema) {
      return `a tool of the upstream has an input schema over ${CATALOG_BOUNDS.toolSchema} characters`;
    }
    this.#chars += JSON.stringify(tool).length + 1;
    if (this.#chars > CATALOG_BOUNDS.catalog) {
      return `the upstream's catalog of tools is over ${CATALOG_BOUNDS.catalog} characters`;
    }
    return undefined;
  }
}

/** Room left for a tool result in a peer answer (the protocol caps answers at 64 KiB). */
const MAX_RESULT_CHARS = MAX_PEER_BODY_BYTES - 4096;

/** The caller refuses a peer answer over the protocol's size limit: say so instead. */
export function boundedResult(outcome: { ok: boolean; result: unknown }): { ok: boolean; result: unknown } {
  if (JSON.stringify(outcome).length <= MAX_RESULT_CHARS) return outcome;
  return {
    ok: false,
    result: {
      error: 'result_too_large',
      message: `the tool's result is over ${MAX_RESULT_CHARS} characters`,
    },
  };
}
