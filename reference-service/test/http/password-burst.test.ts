import { describe, expect, it } from 'vitest';
import { scryptGate } from '../../src/domain/scrypt-gate.js';
import { rawCall } from '../support/raw-call.js';
import { serviceForTests } from '../support/service-lifecycle.js';

// Password checks go through a gate of 2 at once with a bounded queue (domain/scrypt-gate.ts), so that a
// burst cannot hold libuv's thread pool; past the queue a log-in is refused at once with 429.
describe('a burst of wrong log-ins', () => {
  const running = serviceForTests();

  it('is answered 401 or 429 in words, never a hang or a 5xx, and leaves the password gate idle', async () => {
    const attempts = Array.from({ length: 48 }, (_, i) =>
      rawCall(running.service.baseUrl, 'POST', '/v1/sessions', {
        headers: { origin: running.service.baseUrl },
        body: { email: `nobody${i % 6}@burst.example`, password: `wrong password ${i}` },
        localAddress: `127.0.9.${1 + (i % 8)}`,
      }),
    );
    const answers = await Promise.all(attempts);
    for (const answer of answers) {
      expect([401, 429]).toContain(answer.status);
      expect((answer.body as { error: { request_id: string } }).error.request_id).toMatch(/^req_/);
    }
    expect(scryptGate.stats()).toEqual({ running: 0, waiting: 0 });
  });
});
