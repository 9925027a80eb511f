import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { AUTHORIZATION_NEEDED_TROUBLE } from '@svc-kit/contract';
import { causesOf } from '../../domain/errors.js';
import { AnswerTooLargeError } from '../../outbound/bounded-answer.js';
import { OutboundBlockedError } from '../../outbound/target-policy.js';
import type { IntegrationStatus } from '../../store/queries/integrations.js';

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

export const tooLargeFailure = (maxBytes: number) =>
  new OverBound(`the upstream sent an answer over ${maxBytes} bytes; it was dropped unread`);

/**
 * Words for the owner, and only ours: the HTTP status, the MCP error code or the network error code, never
 * the upstream's own text nor an exception's message (which can quote a header value, a token or a body).
 */
export function classifyFailure(error: unknown): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  const chain = causesOf(error);
  const blocked = chain.find((item) => item instanceof OutboundBlockedError);
  if (blocked instanceof Error) {
    return new UpstreamFailure('unreachable', `the upstream address is refused: ${blocked.message}`);
  }
  const tooLarge = chain.find((item) => item instanceof AnswerTooLargeError);
  if (tooLarge instanceof AnswerTooLargeError) return tooLargeFailure(tooLarge.maxBytes);
  if (error instanceof UnauthorizedError) {
    return new UpstreamFailure('needs_authorization', AUTHORIZATION_NEEDED_TROUBLE);
  }
  // The HTTP status a transport's error carries, when it carries one.
  const status =
    (error instanceof StreamableHTTPError || error instanceof SseError) && typeof error.code === 'number'
      ? error.code
      : undefined;
  if (status === 401 || status === 403) {
    return new UpstreamFailure(
      'needs_authorization',
      `the upstream refused the request as unauthorized (HTTP ${status})`,
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
  if (status !== undefined && status >= 100 && status <= 599) {
    return new UpstreamFailure('error', `the upstream answered HTTP ${status}`);
  }
  return new UpstreamFailure('error', 'the upstream failed or did not answer as an MCP server');
}
