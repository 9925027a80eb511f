import { connect } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { OAUTH_CALLBACK_PATH } from '../../src/features/integrations/oauth-provider.js';
import { loggerOptions, requestLogger } from '../../src/http/logger.js';
import { AccessLogController } from '../../src/ops/access-log.js';
import { eventually } from '../delivery/support.js';
import { BACKENDS } from '../support/backends.js';
import { startTestService } from '../support/harness.js';
import { rawRequest } from '../support/raw-http.js';

describe('access log', () => {
  it('writes one line per request, with its id, method, path, status and time, and no credential', async () => {
    const store = await BACKENDS[0]!.open();
    const service = await startTestService(store);
    try {
      const response = await fetch(`${service.baseUrl}/v1/workspace/webhooks?limit=1`, {
        headers: { authorization: 'Bearer svc_not_a_real_key' },
      });
      expect(response.status).toBe(401);
      const requestId = response.headers.get('x-request-id');
      const lines = service
        .logs()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.reqId === requestId);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        msg: 'request completed',
        req: { method: 'GET', url: '/v1/workspace/webhooks?limit=1' },
        res: { statusCode: 401 },
      });
      expect(typeof lines[0]!.responseTime).toBe('number');
      expect(service.logs()).not.toContain('svc_not_a_real_key');

      // The OAuth callback's code and state are credentials: the line keeps the names, not the values.
      const callback = await fetch(
        `${service.baseUrl}/v1/workspace/webhooks?code=planted-code-7f3a&state=planted-state-9c1d&limit=1`,
      );
      const callbackLine = service
        .logs()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { reqId?: string; req?: { url?: string } })
        .find((line) => line.reqId === callback.headers.get('x-request-id'));
      expect(callbackLine?.req?.url).toBe('/v1/workspace/webhooks?code=[redacted]&state=[redacted]&limit=1');
      expect(service.logs()).not.toContain('planted-code-7f3a');
      expect(service.logs()).not.toContain('planted-state-9c1d');

      // Nothing after a `#` is logged (a client may send a fragment raw: Fastify's router even reads a
      // query there); a key's shape is censored wherever it stands, its separators encoded or not; a
      // parameter named like a credential is censored whatever its value and however its name is written.
      const plantedKey = `svc_${'a1'.repeat(8)}_${'b2'.repeat(32)}`;
      const encodedKey = `svc%5F${'c3'.repeat(8)}%5f${'d4'.repeat(32)}`;
      for (const target of [
        '/v1/workspace/webhooks#code=planted-hash-code&limit=1',
        '/#/invite/planted-invite-token',
        `/v1/workspace/webhooks/${plantedKey}`,
        `/v1/workspace/webhooks/${encodedKey}`,
        '/v1/workspace/webhooks?limit=1&api_key=planted-api-key&x-auth-token=planted-header-token',
        '/v1/workspace/webhooks?limit=1&apiKey=planted-camel-key&key[]=planted-array-key&key.x=planted-dotted',
        '/v1/workspace/webhooks?limit=1&user[password]=planted-nested&auth.token=planted-dotted-token',
        '/v1/workspace/webhooks?limit=1#planted-fragment',
        '/v1/workspace/webhooks?limit=1&note=whsec_plantedwebhooksecret&other=whsec%5Fplantedencoded',
      ]) {
        const answer = await rawRequest(
          service.baseUrl,
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        );
        // Refused (no key, or no such route), never a 5xx; the portal's link asks for the portal's page.
        expect(target.startsWith('/#') ? [200, 404] : [401, 404], target).toContain(answer.status);
      }
      // The OAuth callback, the one route that takes credentials in its query, writes no access line.
      const oauth = await fetch(
        `${service.baseUrl}${OAUTH_CALLBACK_PATH}?code=planted-oauth-code&state=planted-oauth-state`,
      );
      // Refused before its state is looked up: no binding cookie of that state came with it.
      expect(oauth.status).toBe(403);
      expect(service.logs()).toContain('"/v1/workspace/webhooks#[redacted]"');
      expect(service.logs()).toContain('"/#[redacted]"');
      expect(service.logs()).toContain('/v1/workspace/webhooks/[redacted]');
      expect(service.logs()).toContain('/v1/workspace/webhooks?limit=1#[redacted]');
      expect(service.logs()).toContain('?limit=1&apiKey=[redacted]&key[]=[redacted]&key.x=[redacted]');
      for (const planted of [
        'planted-hash-code',
        'planted-invite-token',
        plantedKey,
        'd4'.repeat(32),
        'planted-api-key',
        'planted-header-token',
        'planted-camel-key',
        'planted-array-key',
        'planted-dotted',
        'planted-nested',
        'planted-dotted-token',
        'planted-fragment',
        'plantedwebhooksecret',
        'plantedencoded',
        'planted-oauth',
        OAUTH_CALLBACK_PATH,
      ]) {
        expect(service.logs()).not.toContain(planted);
      }
    } finally {
      await service.close();
      await store.close();
    }
  });

  it('writes a line for a request whose caller left before its answer', async () => {
    const store = await BACKENDS[0]!.open();
    const service = await startTestService(store);
    try {
      const socket = connect(Number(new URL(service.baseUrl).port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        'POST /v1/workspace/webhooks?token=planted-left-token HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"url":',
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      await eventually(
        () => service.logs(),
        (logs) => logs.includes('request aborted'),
        5_000,
      );
      const line = service
        .logs()
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((entry) => entry.msg === 'request aborted');
      expect(line).toMatchObject({
        aborted: true,
        req: { method: 'POST', url: '/v1/workspace/webhooks?token=[redacted]' },
      });
      expect(typeof line!.responseTime).toBe('number');
      expect(service.logs()).not.toContain('planted-left-token');
    } finally {
      await service.close();
      await store.close();
    }
  });

  it("censors the URL of Fastify's own lines that carry the request too", () => {
    const lines: string[] = [];
    const logger = pino(loggerOptions('info'), {
      write: (line: string) => {
        lines.push(line);
      },
    });
    logger.error(
      {
        req: {
          method: 'GET',
          url: '/v1/workspace/webhooks?code=planted-error-code&limit=1',
          ip: '192.0.2.7',
        },
      },
      'request errored',
    );
    expect(JSON.parse(lines[0]!)).toMatchObject({
      req: {
        method: 'GET',
        url: '/v1/workspace/webhooks?code=[redacted]&limit=1',
        remoteAddress: '192.0.2.7',
      },
    });
    expect(lines.join('')).not.toContain('planted-error-code');
  });

  it('writes, byte for byte, the line pino writes for the same fields', () => {
    const lines: string[] = [];
    const logger = pino(loggerOptions('info'), { write: (line: string) => void lines.push(line) });
    const request = {
      id: 'req_0123456789abcdef01234567',
      method: 'PATCH',
      url: '/v1/workspace/webhooks/whk_1?note="quoted"\\&token=planted-token',
      ip: '2001:db8::7',
    };
    const reply = { statusCode: 200, elapsedTime: 1.2345678901234, log: logger };
    new AccessLogController(logger).requestCompleted(
      null,
      request as unknown as FastifyRequest,
      reply as unknown as FastifyReply,
    );
    // What the line was before it was put together by hand: pino's own, with the URL censored the same way.
    logger.child({}, { redact: [], serializers: { req: (req: unknown) => req } }).info(
      {
        reqId: request.id,
        req: {
          method: request.method,
          url: '/v1/workspace/webhooks/whk_1?note="quoted"\\&token=[redacted]',
          remoteAddress: request.ip,
        },
        res: { statusCode: 200 },
        responseTime: reply.elapsedTime,
      },
      'request completed',
    );
    expect(lines).toHaveLength(2);
    const withoutTime = (line: string) => line.replace(/"time":\d+/, '"time":0');
    expect(withoutTime(lines[0]!)).toBe(withoutTime(lines[1]!));
    expect(lines[0]).not.toContain('planted-token');
  });

  it("gives each request a logger whose lines are pino's child's, byte for byte", () => {
    const lines: string[] = [];
    const logger = pino(loggerOptions('info'), { write: (line: string) => void lines.push(line) });
    const reqId = 'req_89abcdef0123456789abcdef';
    const fields = { endpoint_id: 'whk_1', secret: 'planted-secret', nested: { token: 'planted-token' } };
    requestLogger(logger, { reqId }, {}).warn(fields, 'something happened');
    logger.child({ reqId }).warn(fields, 'something happened');
    // A grandchild keeps both bindings in the same order either way.
    requestLogger(logger, { reqId }, {}).child({ integration: 'int_1' }).info('nested');
    logger.child({ reqId }).child({ integration: 'int_1' }).info('nested');
    expect(lines).toHaveLength(4);
    const withoutTime = (line: string) => line.replace(/"time":\d+/, '"time":0');
    expect(withoutTime(lines[0]!)).toBe(withoutTime(lines[1]!));
    expect(withoutTime(lines[2]!)).toBe(withoutTime(lines[3]!));
    expect(lines.join('')).not.toContain('planted-');
    // A route with its own level gets pino's own child, at that level.
    const quiet = requestLogger(logger, { reqId }, { level: 'warn' });
    quiet.info('not written');
    expect(lines).toHaveLength(4);
  });
});
