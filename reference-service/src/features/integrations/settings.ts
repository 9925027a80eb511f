import type { IntegrationTransport } from '@svc-kit/contract';
import type { Reach } from '../../domain/local-targets.js';
import type { UpstreamHostBudgets } from '../../domain/upstream-host-limits.js';

/** A documented upstream the owner can connect by name (createIntegration's `catalogue`). */
export interface CatalogueEntry {
  endpoint: string;
  transport: IntegrationTransport;
  description: string;
}

/**
 * The built-in catalogue: public MCP servers that need no credential, listed in this folder's README. The name is
 * also the integration's default slug. Deployments (and tests) may pass their own table instead.
 */
export const BUILT_IN_CATALOGUE: Readonly<Record<string, CatalogueEntry>> = {
  deepwiki: {
    endpoint: 'https://mcp.deepwiki.com/mcp',
    transport: 'streamable-http',
    description: 'Questions about public GitHub repositories, answered from their generated wikis.',
  },
  context7: {
    endpoint: 'https://mcp.context7.com/mcp',
    transport: 'streamable-http',
    description: 'Current documentation of libraries and frameworks.',
  },
};

/** How this instance reaches upstream MCP servers (read by config.ts; a test may pass its own). */
export interface IntegrationSettings {
  /**
   * Upstreams on http(s)://localhost and 127.0.0.1: a local sandbox, or SVC_ALLOW_LOCALHOST_INTEGRATIONS=1.
   * Everything else goes through the webhook delivery guard unchanged.
   */
  allowLocalhost: boolean;
  /** Who may reach this instance, for the refusal of an upstream on localhost; unset: the rule in general. */
  reach?: Reach | undefined;
  /** Time allowed to connect to an upstream, and for one MCP request. */
  timeoutMs: number;
  /**
   * Bytes read of one answer from an upstream or its authorization server (an MCP message, a whole SSE
   * stream, OAuth metadata, a token): past it the exchange ends and nothing of the answer is kept.
   */
  maxAnswerBytes: number;
  /** The catalogue createIntegration's `catalogue` field names; the built-in one by default. */
  catalogue: Readonly<Record<string, CatalogueEntry>>;
  /** The budgets of exchanges per upstream host; UPSTREAM_HOST_BUDGETS unless a test narrows them. */
  hostBudgets?: UpstreamHostBudgets | undefined;
}

/** A catalog is stored under 1 MiB of JSON (rules.ts): an answer twice that size holds nothing storable. */
export const DEFAULT_MAX_ANSWER_BYTES = 2 * 1024 * 1024;

/** The settings when none are given: no sandbox opt-in, the built-in catalogue. */
export const DEFAULT_INTEGRATION_SETTINGS: IntegrationSettings = {
  allowLocalhost: false,
  timeoutMs: 10_000,
  maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES,
  catalogue: BUILT_IN_CATALOGUE,
};
