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
    } finally {
      await service.close();
      await store.close();
    }
  });
});
