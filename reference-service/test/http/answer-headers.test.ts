import { describe, expect, it } from 'vitest';
import { ANSWER_HEADERS } from '../../src/http/answer-headers.js';
import { createTenant } from '../support/harness.js';
import { serviceForTests } from '../support/service-lifecycle.js';

describe('headers on every answer', () => {
  const running = serviceForTests();

  it('answers refusals, unknown routes and reads with nosniff and a policy that runs nothing', async () => {
    for (const [method, path] of [
      ['GET', '/v1/session'],
      ['POST', '/v1/accounts'],
      ['GET', '/nope'],
      ['GET', '/v1/openapi.json'],
    ] as const) {
      const answer = await fetch(`${running.service.baseUrl}${path}`, { method });
      for (const [name, value] of Object.entries(ANSWER_HEADERS))
        expect(answer.headers.get(name), `${method} ${path} ${name}`).toBe(value);
    }
  });

  // Refused before any hook ran: a path that is not UTF-8 or has an over-long parameter (Fastify's
  // frameworkErrors), headers over Node's limit (its HTTP parser). Each may be opened as a page too.
  it('answers the refusals made before routing with them too', async () => {
    const tenant = await createTenant(running.service.ctx);
    const webhook = '/v1/workspace/webhooks';
    for (const [what, path] of [
      ['a path that is not UTF-8', `${webhook}/%FF/activity`],
      ['an encoded lone surrogate', `${webhook}/x/deliveries/%ED%A0%80/request`],
      ['an over-long path parameter', `${webhook}/${'x'.repeat(3000)}/activity`],
      ['headers over the limit', `${webhook}/x/deliveries?limit=5&event_type=${'x'.repeat(20_000)}`],
    ] as const) {
      const answer = await fetch(`${running.service.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${tenant.key}` },
      });
      expect(answer.status, what).toBeGreaterThanOrEqual(400);
      expect(answer.status, what).toBeLessThan(500);
      for (const [name, value] of Object.entries(ANSWER_HEADERS))
        expect(answer.headers.get(name), `${what}: ${name}`).toBe(value);
    }
  });
});
