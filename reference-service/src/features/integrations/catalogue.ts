import type { IntegrationTransport } from '@svc-kit/contract';

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
