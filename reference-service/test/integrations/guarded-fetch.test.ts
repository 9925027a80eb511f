import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyFailure } from '../../src/features/integrations/upstream-failure.js';
import { createGuardedFetch } from '../../src/outbound/guarded-fetch.js';
import { OutboundBlockedError } from '../../src/outbound/target-policy.js';
import { testResolve } from '../support/harness.js';

async function blockedBy(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    let current: unknown = error;
    while (current instanceof Error) {
      if (current instanceof OutboundBlockedError) return current.message;
      current = (current as { cause?: unknown }).cause;
    }
    throw error;
  }
  throw new Error('expected the guard to refuse');
}

/** The fetch every upstream request goes through: the webhook delivery guard, applied to MCP traffic. */
describe('the guarded fetch of integrations', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/redirect') res.writeHead(302, { location: 'http://10.0.0.1/' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses loopback, IP literals, plain http and names resolving to private addresses', async () => {
    const guarded = createGuardedFetch({ resolve: testResolve, allowLocalhost: false }, 2000);
    try {
      expect(await blockedBy(guarded.fetch(`${origin}/`))).toMatch(/https/);
      expect(await blockedBy(guarded.fetch('https://10.0.0.1/mcp'))).toMatch(/IP address/);
      expect(await blockedBy(guarded.fetch('https://internal.example.com/mcp'))).toMatch(/forbidden address/);
      expect(await blockedBy(guarded.fetch('https://mixed.example.com/mcp'))).toMatch(/forbidden address/);
      expect(
        classifyFailure(new TypeError('fetch failed', { cause: new OutboundBlockedError('x') })),
      ).toMatchObject({
        status: 'unreachable',
      });
    } finally {
      await guarded.close();
    }
  });

  it('reaches loopback only with the sandbox opt-in, and never follows a redirect', async () => {
    const guarded = createGuardedFetch({ resolve: testResolve, allowLocalhost: true }, 2000);
    try {
      const answer = await guarded.fetch(`${origin}/`);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toBe('hello');
      const redirected = await guarded.fetch(`${origin}/redirect`);
      expect(redirected.status).toBe(302);
      expect(redirected.headers.get('location')).toBe('http://10.0.0.1/');
    } finally {
      await guarded.close();
    }
  });
});
