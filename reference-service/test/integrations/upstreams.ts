import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import express from 'express';
import { z } from 'zod';

/**
 * Real MCP servers built with the official SDK, on loopback: the upstreams integrations connect to.
 * Each one serves a mutable tool set (a test removes a tool to make an exposure entry stale) and keeps
 * the headers of every request it received.
 */
export interface Upstream {
  url: string;
  /** The tools served to the next session; delete one to make it vanish upstream. */
  tools: Set<'echo' | 'add'>;
  headers: IncomingHttpHeaders[];
  /** Awaited as a request arrives, before it is served: what a test does meanwhile. */
  arriving?: (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

/** More tools a test serves beside echo and add (oversized ones, say). */
export type ExtraTools = (mcp: McpServer) => void;

/** `count` tools whose descriptions are `chars` long each (one string, so the upstream's own cost is small). */
export function describedTools(count: number, chars: number): ExtraTools {
  const description = 'd'.repeat(chars);
  return (mcp) => {
    for (let i = 0; i < count; i++) {
      mcp.registerTool(`big-${i}`, { description, inputSchema: { text: z.string() } }, async () => ({
        content: [],
      }));
    }
  };
}

function buildMcp(tools: Set<'echo' | 'add'>, extra?: ExtraTools): McpServer {
  const mcp = new McpServer({ name: 'test-upstream', version: '1.0.0' });
  extra?.(mcp);
  if (tools.has('echo')) {
    mcp.registerTool(
      'echo',
      { description: 'Echoes the text back.', inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
    );
  }
  if (tools.has('add')) {
    mcp.registerTool(
      'add',
      { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
    );
  }
  return mcp;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** Streamable HTTP, stateless (no session id: one MCP server per request), optionally requiring one header. */
export async function startStreamableUpstream(
  required?: { header: string; value: string },
  extra?: ExtraTools,
): Promise<Upstream> {
  const tools = new Set<'echo' | 'add'>(['echo', 'add']);
  const headers: IncomingHttpHeaders[] = [];
  const hooks: Pick<Upstream, 'arriving'> = {};
  const server = createServer(async (req, res) => {
    headers.push(req.headers);
    await hooks.arriving?.();
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    if (required && req.headers[required.header.toLowerCase()] !== required.value) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const mcp = buildMcp(tools, extra);
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  const base = await listen(server);
  return Object.assign(hooks, { url: `${base}/mcp`, tools, headers, close: closer(server) });
}

/** The older HTTP+SSE transport: GET /sse opens the stream, POST /messages carries requests. */
export async function startSseUpstream(extra?: ExtraTools): Promise<Upstream> {
  const tools = new Set<'echo' | 'add'>(['echo', 'add']);
  const headers: IncomingHttpHeaders[] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const server = createServer(async (req, res) => {
    headers.push(req.headers);
    const url = new URL(req.url ?? '/', 'http://upstream');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      res.on('close', () => sessions.delete(transport.sessionId));
      await buildMcp(tools, extra).connect(transport);
      return;
    }
    const session = sessions.get(url.searchParams.get('sessionId') ?? '');
    if (req.method === 'POST' && url.pathname === '/messages' && session) {
      await session.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  const base = await listen(server);
  return { url: `${base}/sse`, tools, headers, close: closer(server) };
}

/** What the test authorization server issued, to check what the service stored. */
export interface OAuthUpstream extends Upstream {
  issued: OAuthTokens[];
  registered: OAuthClientInformationFull[];
}

/**
 * An MCP server behind a small real authorization server made with the SDK's server auth helpers:
 * protected-resource and authorization-server metadata, dynamic client registration, authorization
 * code with PKCE (checked by the SDK's token handler), tokens. The owner's consent is automatic.
 */
export async function startOAuthUpstream(): Promise<OAuthUpstream> {
  const tools = new Set<'echo' | 'add'>(['echo', 'add']);
  const headers: IncomingHttpHeaders[] = [];
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { clientId: string; challenge: string }>();
  const tokens = new Map<string, { clientId: string; expiresAt: number }>();
  const issued: OAuthTokens[] = [];
  const registered: OAuthClientInformationFull[] = [];

  const issue = (clientId: string): OAuthTokens => {
    const access = randomBytes(24).toString('hex');
    tokens.set(access, { clientId, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    const result = {
      access_token: access,
      token_type: 'bearer',
      expires_in: 3600,
      refresh_token: randomBytes(24).toString('hex'),
    };
    issued.push(result);
    return result;
  };

  const provider: OAuthServerProvider = {
    clientsStore: {
      getClient: (id) => clients.get(id),
      registerClient: (client) => {
        const full = client as OAuthClientInformationFull;
        clients.set(full.client_id, full);
        registered.push(full);
        return full;
      },
    },
    async authorize(client, params, res) {
      const code = randomUUID();
      codes.set(code, { clientId: client.client_id, challenge: params.codeChallenge });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(302, target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const entry = codes.get(code);
      if (!entry) throw new Error('unknown code');
      return entry.challenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const entry = codes.get(code);
      if (!entry || entry.clientId !== client.client_id) throw new Error('unknown code');
      codes.delete(code);
      return issue(client.client_id);
    },
    async exchangeRefreshToken(client) {
      return issue(client.client_id);
    },
    async verifyAccessToken(token) {
      const entry = tokens.get(token);
      if (!entry) throw new InvalidTokenError('unknown token');
      return { token, clientId: entry.clientId, scopes: [], expiresAt: entry.expiresAt };
    },
  };

  const server = createServer();
  const base = await listen(server);
  const mcpUrl = new URL(`${base}/mcp`);
  const app = express();
  app.use((req, _res, next) => {
    headers.push(req.headers);
    next();
  });
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl }));
  app.all(
    '/mcp',
    requireBearerAuth({
      verifier: provider,
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    }),
    async (req, res) => {
      const mcp = buildMcp(tools);
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    },
  );
  server.on('request', app);
  return { url: mcpUrl.href, tools, headers, issued, registered, close: closer(server) };
}
