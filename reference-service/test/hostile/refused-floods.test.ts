import { Histogram, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEER_CALLS_PER_ADDRESS } from '../../src/domain/door-limits.js';
import { timedDb } from '../../src/ops/timed-db.js';
import { BACKENDS } from '../support/backends.js';
import { createTenant, startTestService, type TestService } from '../support/harness.js';
import { expectRateLimited, rawCall } from '../support/raw-call.js';
import { useStore } from '../support/service-lifecycle.js';

// Issue 40: a flood of calls the database had already refused still cost statements, one flood at the rate
// it was sent, and slowed every other tenant's log-in. Once an address is refused, its next calls are
// refused from memory until the time the 429 named, and then the database answers again.

const clock = { at: Date.now(), now: () => clock.at };

describe.each(BACKENDS)('refused floods cost no statements, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let statements: Histogram;

  beforeAll(async () => {
    service = await startTestService(store, { now: clock.now });
    const registry = new Registry();
    statements = new Histogram({ name: 'statements', help: 'statements', registers: [registry] });
    const sectionWait = new Histogram({ name: 'waits', help: 'waits', registers: [registry] });
    // The service's own metrics wrapper, counting every statement the routes send from here on.
    service.ctx.db = timedDb(service.ctx.db, { statement: statements, sectionWait });
  });
  afterAll(async () => {
    await service?.close();
  });

  const statementsSent = async () =>
    (await statements.get()).values.find((v) => v.metricName === 'statements_count')?.value ?? 0;

  it('answers wrong passwords from a refused address without the database, until the wait is over', async () => {
    const tenant = await createTenant(service.ctx);
    const login = (password: string) =>
      rawCall(service.baseUrl, 'POST', '/v1/sessions', {
        body: { email: tenant.email, password },
        localAddress: '127.0.61.1',
      });
    let first = await login('wrong');
    for (let i = 0; i < 50 && first.status === 401; i++) first = await login('wrong');
    expectRateLimited(first);
    const retryAfter = Number(first.headers['retry-after']);

    const before = await statementsSent();
    for (let i = 0; i < 50; i++) {
      const refused = await login(i % 2 === 0 ? 'wrong' : tenant.password);
      expectRateLimited(refused);
      expect(refused.headers['retry-after']).toBe(String(retryAfter));
    }
    expect(await statementsSent()).toBe(before);

    // Once the wait is over the database answers again: the right password signs in.
    clock.at += retryAfter * 1000;
    expect((await login(tenant.password)).status).toBe(201);
    expect(await statementsSent()).toBeGreaterThan(before);
  });

  it('answers a refused address on /peer/v1 without the database', async () => {
    const peerCall = () =>
      rawCall(service.baseUrl, 'POST', '/peer/v1/identities/nobody/request', {
        body: {},
        localAddress: '127.0.61.2',
      });
    for (let i = 0; i < PEER_CALLS_PER_ADDRESS.capacity; i++) expect((await peerCall()).status).not.toBe(429);
    expect((await peerCall()).status).toBe(429);
    const before = await statementsSent();
    for (let i = 0; i < 50; i++) expect((await peerCall()).status).toBe(429);
    expect(await statementsSent()).toBe(before);
    // Another address is counted by the database as before.
    const other = await rawCall(service.baseUrl, 'POST', '/peer/v1/identities/nobody/request', {
      body: {},
      localAddress: '127.0.61.3',
    });
    expect(other.status).not.toBe(429);
    expect(await statementsSent()).toBeGreaterThan(before);
  });
});
