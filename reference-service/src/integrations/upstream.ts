import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { OutboundBlockedError } from '../outbound/target-policy.js';
import type { IntegrationStatus } from '../store/queries/integrations.js';
import type { GuardedFetch } from './guarded-fetch.js';

/** A tool of the upstream, in the shape contacts see (spec 2.6). */
export interface UpstreamTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface UpstreamTarget {
  endpoint: string;
  transport: 'streamable-http' | 'sse';
  /** The stored static credential, as one header; empty when there is none. */
  headers: Record<string, string>;
  /** Present when the upstream is (or may be) reached with OAuth tokens. */
  authProvider?: OAuthClientProvider;
}

/** How a failed exchange with an upstream leaves the integration: its status, and why in words. */
export class UpstreamFailure extends Error {
  constructor(
    readonly status: Exclude<IntegrationStatus, 'healthy'>,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamFailure';
  }
}

/** More tools than this are not listed (a catalog is stored and shown whole). */
const MAX_TOOLS = 500;
const CLIENT_INFO = { name: 'svc-kit-reference-service', version: '0.1.0' };

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/**
 * Words for the owner, never the credential: our messages name the HTTP status or the network error
 * code; the upstream's own message is cut short.
 */
export function classifyFailure(error: unknown): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  const chain = causes(error);
  const blocked = chain.find((item) => item instanceof OutboundBlockedError);
  if (blocked instanceof Error) {
    return new UpstreamFailure('unreachable', `the upstream address is refused: ${blocked.message}`);
  }
  if (error instanceof UnauthorizedError) {
    return new UpstreamFailure('needs_authorization', 'the upstream asks for authorization (OAuth)');
  }
  if (
    (error instanceof StreamableHTTPError || error instanceof SseError) &&
    (error.code === 401 || error.code === 403)
  ) {
    return new UpstreamFailure(
      'needs_authorization',
      `the upstream refused the request as unauthorized (HTTP ${error.code})`,
    );
  }
  const code = chain
    .map((item) => (item as { code?: unknown }).code)
    .find((value): value is string => typeof value === 'string');
  if (code !== undefined && /^(E[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(code)) {
    return new UpstreamFailure('unreachable', `the upstream could not be reached (${code})`);
  }
  // The SSE transport keeps only the text of a network failure (no `cause`): read the code from it, but
  // only when no HTTP status came back, so an upstream's own words are never taken for one.
  if (error instanceof SseError && typeof error.code !== 'number') {
    const inText = /\b(E[A-Z][A-Z_]+|UND_ERR_[A-Z_]+)\b/.exec(error.message)?.[1];
    if (inText !== undefined) {
      return new UpstreamFailure('unreachable', `the upstream could not be reached (${inText})`);
    }
  }
  if (error instanceof McpError && error.code === -32001) {
    return new UpstreamFailure('unreachable', 'the upstream did not answer in time');
  }
  const message = error instanceof Error ? error.message : String(error);
  return new UpstreamFailure('error', `the upstream failed: ${message.slice(0, 200)}`);
}

function transportFor(target: UpstreamTarget, guarded: GuardedFetch): Transport {
  const url = new URL(target.endpoint);
  const common = {
    fetch: guarded.fetch,
    requestInit: { headers: target.headers },
    ...(target.authProvider ? { authProvider: target.authProvider } : {}),
  };
  return target.transport === 'sse'
    ? new SSEClientTransport(url, common)
    : new StreamableHTTPClientTransport(url, common);
}

/** Connects, runs `fn` with the MCP client, and always disconnects; failures become `UpstreamFailure`. */
export async function withUpstream<T>(
  target: UpstreamTarget,
  guarded: GuardedFetch,
  timeoutMs: number,
  fn: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client(CLIENT_INFO);
  try {
    await client.connect(transportFor(target, guarded), { timeout: timeoutMs });
    return await fn(client);
  } catch (error) {
    throw classifyFailure(error);
  } finally {
    await client.close().catch(() => undefined);
  }
}

export async function listUpstreamTools(client: Client, timeoutMs: number): Promise<UpstreamTool[]> {
  const tools: UpstreamTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    for (const tool of page.tools) {
      tools.push({
        name: tool.name,
        description: tool.description ?? '',
        input_schema: tool.inputSchema as Record<string, unknown>,
      });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined && tools.length < MAX_TOOLS);
  return tools.slice(0, MAX_TOOLS);
}

/** Calls one upstream tool; `ok` is false when the tool itself reports an error (`isError`). */
export async function callUpstreamTool(
  client: Client,
  name: string,
  args: Record<string, unknown> | undefined,
  timeoutMs: number,
): Promise<{ ok: boolean; result: unknown }> {
  const result = await client.callTool(args === undefined ? { name } : { name, arguments: args }, undefined, {
    timeout: timeoutMs,
  });
  return { ok: result.isError !== true, result };
}
