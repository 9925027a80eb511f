// Rotating a listener's secret (rotateWebhookSecret on a `listen://` endpoint) rotates the workspace's
// listener secret: `listen --print-secret`, a `listen` started or resumed afterwards and every live listener
// agree, and during the overlap every listener's deliveries carry both signatures, the new one first. A
// new user rotated one in the portal and, 24 hours later, every relayed delivery was refused by the app.

import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { operations, ROTATION_OVERLAP_MS } from '@svc-kit/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryTenant, eventually, WEBHOOKS } from '../delivery/support.js';
import { BACKENDS } from '../support/backends.js';
import { call, type Tenant } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { type CliProcess, cliOnce, listenerOf, runCli, startRelayService } from './support.js';

/** A local app that records every request's signature header and raw body, and answers 200. */
async function recorder() {
  const requests: { signature: string; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      requests.push({ signature: String(request.headers['x-service-signature']), body });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The `v1` values a delivery signed with `secrets` (in that order) carries, by the spec's rule (6.3). */
function expectSignedWith(request: { signature: string; body: string }, secrets: string[]): void {
  const parts = request.signature.split(',').map((part) => part.split('=') as [string, string]);
  const t = parts.find(([name]) => name === 't')![1];
  const v1 = parts.filter(([name]) => name === 'v1').map(([, value]) => value);
  const hmac = (secret: string) => createHmac('sha256', secret).update(`${t}.${request.body}`).digest('hex');
  expect(v1).toEqual(secrets.map(hmac));
}

describe.each(BACKENDS)('rotating a listener’s secret on $name', (backend) => {
  const store = useStore(backend);
  let service: Awaited<ReturnType<typeof startRelayService>>;
  const running: CliProcess[] = [];
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    service = await startRelayService(store, { soleInstance: backend.name === 'pglite' });
  });
  afterEach(async () => {
    for (const cli of running.splice(0)) {
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
    await Promise.all(closers.splice(0).map((close) => close()));
  });
  afterAll(async () => {
    await service?.close();
  });

  const env = (tenant: Tenant) => ({ SVC_API_KEY: tenant.key, SVC_BASE_URL: service.baseUrl });

  async function app() {
    const started = await recorder();
    closers.push(started.close);
    return started;
  }

  async function listen(tenant: Tenant, forwardTo: string) {
    const cli = runCli(['listen', '--forward-to', forwardTo], env(tenant));
    running.push(cli);
    return { cli, ...(await listenerOf(cli)) };
  }

  /** Rotates as the portal does (a stepped-up session), answered as for any endpoint. */
  async function rotate(tenant: Tenant, id: string) {
    const rotated = await call(service, 'POST', `${WEBHOOKS}/${id}/secret`, {
      auth: { cookie: tenant.steppedUpSession },
    });
    expect(rotated.status).toBe(200);
    return operations.rotateWebhookSecret.success.schema.parse(rotated.body);
  }

  const printSecret = async (tenant: Tenant) =>
    (await cliOnce(['listen', '--print-secret'], env(tenant))).stdout.trim();

  /** Triggers one event and waits until each app got its delivery. */
  async function deliverToAll(tenant: Tenant & { slug: string }, apps: { requests: unknown[] }[]) {
    const before = apps.map((each) => each.requests.length);
    const triggered = await cliOnce(['trigger', 'message.received', '--identity', tenant.slug], env(tenant));
    expect(triggered.code).toBe(0);
    await eventually(
      () => apps.map((each) => each.requests.length),
      (counts) => counts.every((count, i) => count === before[i]! + 1),
    );
  }

  it('rotates the secret of every listener: --print-secret, a new and a resumed listen agree, both sign', async () => {
    const tenant = await createDeliveryTenant(service);
    const [first, second, third] = [await app(), await app(), await app()];
    const one = await listen(tenant, first.url);
    const two = await listen(tenant, second.url);
    const old = one.secret;
    expect(two.secret).toBe(old);

    const started = Date.now();
    const rotated = await rotate(tenant, one.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.previous_accepted_until).toBeGreaterThanOrEqual(started + ROTATION_OVERLAP_MS);
    expect(rotated.previous_accepted_until).toBeLessThanOrEqual(Date.now() + ROTATION_OVERLAP_MS);

    expect(await printSecret(tenant)).toBe(rotated.secret);
    // A listen started during the overlap is told the new secret, and signs with the old one too.
    const three = await listen(tenant, third.url);
    expect(three.secret).toBe(rotated.secret);

    await deliverToAll(tenant, [first, second, third]);
    for (const each of [first, second, third]) expectSignedWith(each.requests.at(-1)!, [rotated.secret, old]);

    // Every listener shows the overlap in the list, as any rotated endpoint does.
    const listed = await call(service, 'GET', WEBHOOKS, { auth: { key: tenant.key } });
    const endpoints = (listed.body as { endpoints: { id: string; rotating_until: number | null }[] })
      .endpoints;
    for (const id of [one.id, two.id, three.id]) {
      expect(endpoints.find((e) => e.id === id)?.rotating_until).toBe(rotated.previous_accepted_until);
    }

    // A second rotation within the overlap: the secret from before the first stays second, until the
    // first overlap's end; the one shown by the first rotation no longer signs.
    const again = await rotate(tenant, two.id);
    expect(again.previous_accepted_until).toBe(rotated.previous_accepted_until);
    expect(await printSecret(tenant)).toBe(again.secret);
    await deliverToAll(tenant, [first, second, third]);
    for (const each of [first, second, third]) expectSignedWith(each.requests.at(-1)!, [again.secret, old]);

    // A resumed stream (what `listen` does when it reconnects) is told the current secret in `ready`.
    const controller = new AbortController();
    try {
      const response = await fetch(`${service.baseUrl}/relay/v1/listen?listener=${one.id}`, {
        headers: { authorization: `Bearer ${tenant.key}` },
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
      expect(/"secret":"([^"]+)"/.exec(text)![1]).toBe(again.secret);
    } finally {
      controller.abort();
    }
  });

  it('says the new secret when a running listen reconnects after the rotation', async () => {
    const tenant = await createDeliveryTenant(service);
    const local = await app();
    const running = await listen(tenant, local.url);
    const rotated = await rotate(tenant, running.id);
    // The stream drops (as when the service restarts); the CLI resumes its listener a second later.
    await service.relay.end(running.id, 'unavailable');
    await running.cli.printed(`Reconnected (listener ${running.id})`);
    await running.cli.printed(`The signing secret was rotated. Signing secret: ${rotated.secret}`);
    expect(running.cli.stdout()).toContain(
      `the previous one also signs until ${new Date(rotated.previous_accepted_until).toISOString()}`,
    );
    await deliverToAll(tenant, [local]);
    expectSignedWith(local.requests.at(-1)!, [rotated.secret, running.secret]);
  });
});
