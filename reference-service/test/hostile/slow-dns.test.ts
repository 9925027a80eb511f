import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { type RunningDelivery, startDelivery } from '../../src/delivery/start.js';
import { createDnsResolve, DNS_DEADLINE_MS } from '../../src/outbound/dns-resolve.js';
import { createDeliveryTenant, eventually, trigger } from '../delivery/support.js';
import { BACKENDS } from '../support/backends.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { call, expectRefusal, startTestService, type Tenant, type TestService } from '../support/harness.js';
import { lineSink } from '../support/line-sink.js';
import { useStore } from '../support/service-lifecycle.js';

const WEBHOOKS = '/v1/workspace/webhooks';
/** What a slow name's server takes to answer: far beyond the resolver's bound and the connect timeout. */
const SLOW_MS = 8_000;
const PUBLIC_ADDRESS = '93.184.215.14';
/** The delivery worker's connect timeout, which counts the lookup: a slow name must fail before it. */
const CONNECT_TIMEOUT_MS = 5_000;
/** Generous, for a shared machine: what "promptly" means for the other tenant. */
const PROMPT_MS = 1_000;

/**
 * Issue 40: tenant A's webhook names on a DNS server that answers after 8 s held the thread pool that
 * `dns.lookup` runs on, so tenant B's delivery failed as a connect timeout without its name ever being
 * looked up, and B's createWebhook took 15 s. Here the real resolver (c-ares, SVC_DNS_SERVERS read as the
 * service reads it) asks a DNS server of the test's own on loopback.
 */
describe.each(BACKENDS)("a tenant's slow DNS holds up no one else, on $name", (backend) => {
  let dns: TestDnsServer;
  const store = useStore(backend);
  let service: TestService;
  let delivery: RunningDelivery;
  const { sink, lines: warnings } = lineSink();

  beforeAll(async () => {
    dns = await startDnsServer((name) => {
      if (name.endsWith('.slow.test')) return { a: [PUBLIC_ADDRESS], delayMs: SLOW_MS };
      if (name.endsWith('.fast.test')) return { a: [PUBLIC_ADDRESS] };
      return undefined;
    });
    const config = readConfig({ SVC_DNS_SERVERS: dns.address });
    expect(config.dnsServers).toEqual([dns.address]);
    service = await startTestService(store, {
      resolveHost: createDnsResolve({ servers: config.dnsServers }),
      extra: { sandboxRoutes: true },
    });
    delivery = await startDelivery(service.ctx, pino({ level: 'warn' }, sink), {
      pollIntervalMs: 200,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    });
  });
  afterAll(async () => {
    await delivery?.stop();
    await service?.close();
    await dns?.close();
  });

  const createWebhook = async (tenant: Tenant, url: string) => {
    const started = performance.now();
    const answer = await call(service, 'POST', WEBHOOKS, {
      auth: { cookie: tenant.steppedUpSession },
      body: { url, events: [] },
    });
    const ended = performance.now();
    return { answer, ms: ended - started, ended };
  };
  const reasonOf = (answer: { body: unknown }) =>
    (answer.body as { error: { message: string } }).error.message;
  const queried = (name: string) => dns.queries.some((query) => query.name === name);

  it('refuses a slow name within the bound, saying it does not resolve in time', async () => {
    const tenant = await createDeliveryTenant(service);
    const { answer, ms } = await createWebhook(tenant, 'https://one.slow.test/hook');
    expectRefusal(answer, 400, 'invalid_request');
    expect(reasonOf(answer)).toContain(
      `one.slow.test does not resolve in time (within ${DNS_DEADLINE_MS} ms)`,
    );
    expect(ms).toBeLessThan(DNS_DEADLINE_MS + PROMPT_MS);
    // A name that does not exist is refused at once, as before, and in its own words.
    const missing = await createWebhook(tenant, 'https://nowhere.test/hook');
    expectRefusal(missing.answer, 400, 'invalid_request');
    expect(reasonOf(missing.answer)).toMatch(/the hostname nowhere\.test does not resolve$/);
    expect(missing.ms).toBeLessThan(PROMPT_MS);
    // The answer of a name that resolves is the server's, both families asked.
    const fast = await createWebhook(tenant, 'https://one.fast.test/hook');
    expect(fast.answer.status).toBe(201);
    expect(dns.queries.filter((query) => query.name === 'one.fast.test').map((query) => query.type)).toEqual(
      expect.arrayContaining([1, 28]),
    );
  }, 30_000);

  it('blocks a delivery to a name gone slow before the connect timeout, saying why', async () => {
    const tenant = await createDeliveryTenant(service);
    // Registered while it answered; its DNS has been slow since.
    await seedActiveEndpoint(
      service.ctx.db,
      service.ctx.secretBox,
      tenant.workspaceId,
      'https://gone.slow.test/in',
    );
    const started = performance.now();
    await trigger(service, tenant, 'contact.updated');
    await eventually(
      () => warnings.join(''),
      (log) => log.includes('gone.slow.test does not resolve in time'),
      CONNECT_TIMEOUT_MS + 5_000,
    );
    expect(performance.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS);
    expect(warnings.join('')).toContain('delivery blocked');
    expect(warnings.join('')).not.toContain('connect timed out');
  }, 30_000);

  it("answers another tenant's createWebhook and lookups promptly while slow lookups are in flight", async () => {
    const attacker = await createDeliveryTenant(service);
    const victim = await createDeliveryTenant(service);
    // The attack as found: endpoints on slow names, each event a delivery whose lookup hangs, and more
    // slow creates in flight.
    await seedActiveEndpoint(
      service.ctx.db,
      service.ctx.secretBox,
      attacker.workspaceId,
      'https://hold.slow.test/in',
    );
    for (let i = 0; i < 10; i++) await trigger(service, attacker, 'contact.updated');
    const slowCreates = Array.from({ length: 6 }, (_, i) =>
      createWebhook(attacker, `https://a${i}.slow.test/hook`),
    );
    await eventually(
      () =>
        Array.from({ length: 6 }, (_, i) => queried(`a${i}.slow.test`)).every(Boolean) &&
        queried('hold.slow.test'),
      (inFlight) => inFlight,
      PROMPT_MS * 2,
    );

    const created = await createWebhook(victim, 'https://victim.fast.test/hook');
    expect(created.answer.status).toBe(201);
    expect(created.ms).toBeLessThan(PROMPT_MS);
    const started = performance.now();
    expect(await service.ctx.resolveHost('victim-delivery.fast.test')).toEqual([PUBLIC_ADDRESS]);
    const answered = performance.now();
    expect(answered - started).toBeLessThan(PROMPT_MS);
    // Every slow create was still in flight meanwhile, and each is refused within the bound.
    for (const { answer, ms, ended } of await Promise.all(slowCreates)) {
      expect(ended).toBeGreaterThan(answered);
      expectRefusal(answer, 400, 'invalid_request');
      expect(reasonOf(answer)).toContain('does not resolve in time');
      expect(ms).toBeLessThan(DNS_DEADLINE_MS + PROMPT_MS);
    }
  }, 30_000);
});
