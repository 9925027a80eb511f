import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { startTestService } from '../support/harness.js';

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
    } finally {
      await service.close();
      await store.close();
    }
  });
});
