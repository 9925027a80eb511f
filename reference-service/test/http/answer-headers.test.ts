import { describe, expect, it } from 'vitest';
import { ANSWER_HEADERS } from '../../src/http/answer-headers.js';
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
});
