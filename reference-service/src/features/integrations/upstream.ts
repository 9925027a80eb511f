import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@svc-kit/contract';
import { boundedAnswer } from '../../outbound/bounded-answer.js';
import type { GuardedFetch } from '../../outbound/guarded-fetch.js';
import { CatalogBound } from './rules.js';
import type { IntegrationSettings } from './settings.js';
import { classifyFailure, OverBound, tooLargeFailure, UpstreamFailure } from './upstream-failure.js';

export interface UpstreamTarget {
  endpoint: string;
  transport: 'streamable-http' | 'sse';
  /** The stored static credential, as one header; empty when there is none. */
  headers: Record<string, string>;
  /** Present when the upstream is (or may be) reached with OAuth tokens. */
  authProvider?: OAuthClientProvider;
}

/** More tools than this are not listed (a catalog is stored and shown whole). */
const MAX_TOOLS = 500;

const CLIENT_INFO = { name: 'svc-kit-reference-service', version: '0.1.0' };

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
  { timeoutMs, maxAnswerBytes }: IntegrationSettings,
  work: (fetch: FetchLike) => Promise<T>,
): Promise<T> {
  // The whole of one exchange (connecting, initializing and the requests after it): twice a request's time.
  const totalMs = timeoutMs * 2;
  const controller = new AbortController();
  let stop!: (failure: UpstreamFailure) => void;
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = reject;
  });
  const tooLarge = () => {
    stop(tooLargeFailure(maxAnswerBytes));
    controller.abort(new Error('answer too large'));
  };
  const fetch: FetchLike = async (url, init) =>
    boundedAnswer(
      await guarded.fetch(url, {
        ...init,
        signal: init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal,
      }),
      maxAnswerBytes,
      tooLarge,
    );
  const timer = setTimeout(() => {
    controller.abort(new Error('deadline'));
    stop(new UpstreamFailure('unreachable', `the upstream did not finish within ${totalMs} ms`));
  }, totalMs);
  try {
    return await Promise.race([work(fetch), stopped]);
  } finally {
    clearTimeout(timer);
    controller.abort(new Error('exchange over'));
  }
}

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
 * Connecting and each request are bounded by `timeoutMs`, the whole exchange by `withDeadline`.
 */
export async function withUpstream<T>(
  target: UpstreamTarget,
  guarded: GuardedFetch,
  settings: IntegrationSettings,
  fn: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client(CLIENT_INFO);
  let refusedWith: number | undefined;
  try {
    return await withDeadline(guarded, settings, async (fetch) => {
      const watched: FetchLike = async (url, init) => {
        const response = await fetch(url, init);
        if (response.status === 401 || response.status === 403) refusedWith = response.status;
        return response;
      };
      await client.connect(transportFor(target, watched), { timeout: settings.timeoutMs });
      return fn(client);
    });
  } catch (error) {
    const failure = classifyFailure(error);
    // Refused as unauthorized, then no OAuth the SDK could use (no metadata, no registration): still a
    // matter of authorization, which the owner settles by giving the upstream's credential in `auth`. An
    // answer over its bound is the upstream's fault whatever came before it, and says so.
    if (failure.status === 'error' && refusedWith !== undefined && !(failure instanceof OverBound)) {
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

/**
 * The upstream's tools in the shape contacts see (spec 2.6), page after page; a tool or a catalog over
 * its bound fails the listing.
 */
export async function listUpstreamTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = [];
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
  return tools;
}
