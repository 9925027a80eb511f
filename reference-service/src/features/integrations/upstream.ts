import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { AUTHORIZATION_NEEDED_TROUBLE } from '@svc-kit/contract';
import { AnswerTooLargeError, boundedAnswer } from '../../outbound/bounded-answer.js';
import type { GuardedFetch } from '../../outbound/guarded-fetch.js';
import { OutboundBlockedError } from '../../outbound/target-policy.js';
import type { IntegrationStatus } from '../../store/queries/integrations.js';
import { CatalogBound } from './rules.js';

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

/** The upstream answered, with an answer or a catalog over one of the service's bounds. */
export class OverBound extends UpstreamFailure {
  constructor(message: string) {
    super('error', message);
  }
}

const tooLargeFailure = (maxBytes: number) =>
  new OverBound(`the upstream sent an answer over ${maxBytes} bytes; it was dropped unread`);

/** More tools than this are not listed (a catalog is stored and shown whole). */
const MAX_TOOLS = 500;

/** What one exchange may take: its total time, and the bytes of each answer read in it. */
export interface ExchangeLimits {
  totalMs: number;
  maxAnswerBytes: number;
}
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
 * Words for the owner, and only ours: the HTTP status, the MCP error code or the network error code, never
 * the upstream's own text nor an exception's message (which can quote a header value, a token or a body).
 */
export function classifyFailure(error: unknown): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  const chain = causes(error);
  const blocked = chain.find((item) => item instanceof OutboundBlockedError);
  if (blocked instanceof Error) {
    return new UpstreamFailure('unreachable', `the upstream address is refused: ${blocked.message}`);
  }
  const tooLarge = chain.find((item) => item instanceof AnswerTooLargeError);
  if (tooLarge instanceof AnswerTooLargeError) return tooLargeFailure(tooLarge.maxBytes);
  if (error instanceof UnauthorizedError) {
    return new UpstreamFailure('needs_authorization', AUTHORIZATION_NEEDED_TROUBLE);
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
  if (error instanceof McpError) {
    return new UpstreamFailure('error', `the upstream answered with an MCP error (code ${error.code})`);
  }
  if (
    (error instanceof StreamableHTTPError || error instanceof SseError) &&
    typeof error.code === 'number' &&
    error.code >= 100 &&
    error.code <= 599
  ) {
    return new UpstreamFailure('error', `the upstream answered HTTP ${error.code}`);
  }
  return new UpstreamFailure('error', 'the upstream failed or did not answer as an MCP server');
}

/**
 * Runs one exchange with an upstream (MCP session, OAuth discovery or token call) under a total deadline:
 * every request of the exchange goes through a fetch tied to one abort signal, so when the deadline passes
 * every request still open is aborted and its socket closed, whatever the SDK is waiting for (an SSE
 * stream that never sends its `endpoint` event, a body that trickles in forever). Every answer is read
 * as a stream up to `maxAnswerBytes`: one that goes past it ends the exchange at once, with nothing of it
 * kept, whichever of the SDK's readers was reading it.
 */
export async function withDeadline<T>(
  guarded: GuardedFetch,
  limits: ExchangeLimits,
  work: (fetch: FetchLike) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let stop!: (failure: UpstreamFailure) => void;
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = reject;
  });
  const tooLarge = () => {
    stop(tooLargeFailure(limits.maxAnswerBytes));
    controller.abort(new Error('answer too large'));
  };
  const fetch: FetchLike = async (url, init) =>
    boundedAnswer(
      await guarded.fetch(url, {
        ...init,
        signal: init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal,
      }),
      limits.maxAnswerBytes,
      tooLarge,
    );
  const timer = setTimeout(() => {
    controller.abort(new Error('deadline'));
    stop(new UpstreamFailure('unreachable', `the upstream did not finish within ${limits.totalMs} ms`));
  }, limits.totalMs);
  try {
    return await Promise.race([work(fetch), stopped]);
  } finally {
    clearTimeout(timer);
    controller.abort(new Error('exchange over'));
  }
}

/** The whole of one exchange with an upstream: connecting, initializing and the requests after it. */
export const exchangeDeadlineMs = (timeoutMs: number) => timeoutMs * 2;

function transportFor(target: UpstreamTarget, fetch: FetchLike): Transport {
  const url = new URL(target.endpoint);
  const common = {
    fetch,
    requestInit: { headers: target.headers },
    ...(target.authProvider ? { authProvider: target.authProvider } : {}),
  };
  return target.transport === 'sse'
    ? new SSEClientTransport(url, common)
    : new StreamableHTTPClientTransport(url, common);
}

/**
 * Connects, runs `fn` with the MCP client, and always disconnects; failures become `UpstreamFailure`.
 * Connecting and each request are bounded by `timeoutMs`, the whole exchange by `exchangeDeadlineMs`.
 */
export async function withUpstream<T>(
  target: UpstreamTarget,
  guarded: GuardedFetch,
  { timeoutMs, maxAnswerBytes }: { timeoutMs: number; maxAnswerBytes: number },
  fn: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client(CLIENT_INFO);
  const limits = { totalMs: exchangeDeadlineMs(timeoutMs), maxAnswerBytes };
  let refusedWith: number | undefined;
  try {
    return await withDeadline(guarded, limits, async (fetch) => {
      const watched: FetchLike = async (url, init) => {
        const response = await fetch(url, init);
        if (response.status === 401 || response.status === 403) refusedWith = response.status;
        return response;
      };
      await client.connect(transportFor(target, watched), { timeout: timeoutMs });
      return fn(client);
    });
  } catch (error) {
    const failure = classifyFailure(error);
    // Refused as unauthorized, then no OAuth the SDK could use (no metadata, no registration): still a
    // matter of authorization, which the owner settles by giving the upstream's credential in `auth`.
    if (failure.status === 'error' && refusedWith !== undefined) {
      throw new UpstreamFailure(
        'needs_authorization',
        `the upstream refused the request as unauthorized (HTTP ${refusedWith}) and offers no OAuth ` +
          'authorization this service can use: connect it with its credential in auth',
      );
    }
    throw failure;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The upstream's tools, page after page; a tool or a catalog over its bound fails the listing. */
export async function listUpstreamTools(client: Client, timeoutMs: number): Promise<UpstreamTool[]> {
  const tools: UpstreamTool[] = [];
  const bound = new CatalogBound();
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    for (const listed of page.tools) {
      if (tools.length === MAX_TOOLS) break;
      const tool = {
        name: listed.name,
        description: listed.description ?? '',
        input_schema: listed.inputSchema as Record<string, unknown>,
      };
      const problem = bound.add(tool);
      if (problem !== undefined) throw new OverBound(problem);
      tools.push(tool);
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
