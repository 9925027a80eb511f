// `svc-webhooks listen` against the real service: the CLI as a child process, the service on a real socket
// with its delivery worker and relay, and a real Express app verifying with the SDK.

import { createServer as createHttpServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setWorkspaceFlag } from '../../src/store/queries/workspaces.js';
import {
  createDeliveryTenant,
  createEndpoint,
  deliveries,
  eventually,
  type Receiver,
  startExpressReceiver,
  WEBHOOKS,
} from '../delivery/support.js';
import { BACKENDS } from '../support/backends.js';
import { call, type Tenant } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { type CliProcess, cliOnce, freePort, listenerOf, runCli, startRelayService } from './support.js';

type RelayService = Awaited<ReturnType<typeof startRelayService>>;

describe.each(BACKENDS)('svc-webhooks listen on $name', (backend) => {
  const store = useStore(backend);
  let service: RelayService;
  let tenant: Tenant & { slug: string };
  const running: CliProcess[] = [];
  const receivers: Receiver[] = [];
  const env = (on: RelayService = service) => ({ SVC_API_KEY: tenant.key, SVC_BASE_URL: on.baseUrl });

  beforeAll(async () => {
    service = await startRelayService(store, { soleInstance: backend.name === 'pglite' });
  });
  afterEach(async () => {
    for (const cli of running.splice(0)) {
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });
  afterAll(async () => {
    await service?.close();
  });

  async function listen(forwardTo: string, extra: string[] = [], on: RelayService = service) {
    tenant = await createDeliveryTenant(on);
    const cli = runCli(['listen', '--forward-to', forwardTo, ...extra], env(on));
    running.push(cli);
    return { cli, listener: await listenerOf(cli) };
  }

  /** The code the portal's route reads for why the attempt got no answer (never in the /v1 record). */
  async function noAnswerReason(endpointId: string, deliveryId: string): Promise<unknown> {
    const path = `${WEBHOOKS}/${endpointId}/deliveries/${deliveryId}/request`;
    const opened = await call(service, 'GET', path, { auth: { cookie: tenant.plainSession } });
    expect(opened.status).toBe(200);
    return (opened.body as { no_answer_reason: unknown }).no_answer_reason;
  }

  async function receiver(): Promise<Receiver> {
    const started = await startExpressReceiver();
    receivers.push(started);
    return started;
  }

  it('forwards a triggered event to an Express app that verifies it, and logs the local answer', async () => {
    const app = await receiver();
    const { cli, listener } = await listen(app.url);
    app.setSecret(listener.secret);
    const triggered = await cliOnce(['trigger', 'message.received', '--identity', tenant.slug], env());
    expect(triggered.code).toBe(0);
    const eventId = /^(evt_[0-9a-f]+)\s+message\.received/.exec(triggered.stdout)![1]!;

    await cli.printed(new RegExp(`message\\.received\\s+${eventId}\\s+-> 200`));
    expect(app.received.map((r) => [r.eventId, r.type])).toEqual([[eventId, 'message.received']]);
    expect(app.refused).toBe(0);
    const log = await eventually(
      () => deliveries(service, tenant, listener.id),
      (rows) => rows.length === 1 && rows[0]!.status !== 'sending',
    );
    expect(log[0]).toMatchObject({ event_id: eventId, status: 'delivered', http_status: 200, attempt: 1 });
    // The delivery id the app saw is the one the log shows: the very headers a dialled endpoint gets.
    expect(app.received[0]!.deliveryId).toBe(log[0]!.id);

    // The listener is an endpoint of the workspace while the CLI runs; Ctrl-C closes it.
    const listed = await call(service, 'GET', WEBHOOKS, { auth: { key: tenant.key } });
    expect((listed.body as { endpoints: { id: string }[] }).endpoints.map((e) => e.id)).toEqual([
      listener.id,
    ]);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toContain('Listener closed.');
    const after = await call(service, 'GET', WEBHOOKS, { auth: { key: tenant.key } });
    expect((after.body as { endpoints: unknown[] }).endpoints).toEqual([]);
  });

  it('warns when an endpoint the service dials delivers to the same app, and not otherwise', async () => {
    const app = await receiver();
    const quiet = await listen(app.url);
    app.setSecret(quiet.listener.secret);
    await cliOnce(['trigger', 'message.received', '--identity', tenant.slug], env());
    await quiet.cli.printed(/-> 200/);
    expect(quiet.cli.stderr()).not.toContain('also delivers to');

    // The quickstart's endpoint, registered as http://localhost:…, still there when `listen` starts on
    // http://127.0.0.1:… (the same app): every event reaches the app twice, one of each pair refused.
    tenant = await createDeliveryTenant(service);
    const twin = await createEndpoint(service, tenant, `${app.url.replace('127.0.0.1', 'localhost')}/`);
    const cli = runCli(['listen', '--forward-to', app.url], env());
    running.push(cli);
    await listenerOf(cli);
    await cli.printed(`Endpoint ${twin.id} of this workspace also delivers to ${app.url}`);
    expect(cli.stderr()).toContain('Pause or delete it in the portal while you listen.');
  });

  it('only forwards the event types named with --events', async () => {
    const app = await receiver();
    const { cli, listener } = await listen(app.url, ['--events', 'contact.approved']);
    app.setSecret(listener.secret);
    await cliOnce(['trigger', 'message.received'], env());
    const approved = await cliOnce(['trigger', 'contact.approved'], env());
    const eventId = /^(evt_[0-9a-f]+)/.exec(approved.stdout)![1]!;
    await cli.printed(new RegExp(`contact\\.approved\\s+${eventId}\\s+-> 200`));
    expect(app.received.map((r) => r.type)).toEqual(['contact.approved']);
    expect(cli.stdout()).not.toContain('message.received');
  });

  it('says loudly when the local app is down, and the log records the failure with no answer', async () => {
    const down = `http://127.0.0.1:${await freePort()}/webhooks`;
    const { cli, listener } = await listen(down);
    await cliOnce(['trigger', 'message.received'], env());
    await cli.printed(`Nothing is listening at ${down}`);
    expect(cli.stdout()).toMatch(/message\.received\s+evt_[0-9a-f]+\s+-> failed: connection refused/);
    const log = await eventually(
      () => deliveries(service, tenant, listener.id),
      (rows) => rows.length === 1 && rows[0]!.status === 'failed',
    );
    expect(log[0]).toMatchObject({
      http_status: null,
      response_excerpt: 'not delivered: the local app refused the connection',
    });
    expect(await noAnswerReason(listener.id, log[0]!.id)).toBe('refused');
  });

  it('says which path is wrong when the local app answers 404', async () => {
    const app = await receiver();
    const { cli, listener } = await listen(app.url.replace('/hooks', '/wrong-path'));
    app.setSecret(listener.secret);
    await cliOnce(['trigger', 'message.received'], env());
    await cli.printed('Your app has no POST route at /wrong-path (it answered 404)');
    const log = await eventually(
      () => deliveries(service, tenant, listener.id),
      (rows) => rows.length === 1 && rows[0]!.status === 'failed',
    );
    expect(log[0]!.http_status).toBe(404);
  });

  it('suggests --print-secret when the app refuses the signature, and that secret then works', async () => {
    const app = await receiver();
    const { cli, listener } = await listen(app.url);
    app.setSecret('whsec_not-the-listener-secret');
    await cliOnce(['trigger', 'message.received'], env());
    await cli.printed('svc-webhooks listen --print-secret');
    const printed = await cliOnce(['listen', '--print-secret'], env());
    expect(printed).toMatchObject({ code: 0, stdout: `${listener.secret}\n` });
    app.setSecret(printed.stdout.trim());
    await cliOnce(['trigger', 'contact.approved'], env());
    await cli.printed(/contact\.approved\s+evt_[0-9a-f]+\s+-> 200/);
    expect(app.received.map((r) => r.type)).toEqual(['contact.approved']);
  });

  it('fails a delivery whose stream drops before the local answer, and never sends it again', async () => {
    // A local app that takes the request and never answers: the delivery is on its way when the CLI dies.
    const held: ServerResponse[] = [];
    const hanging = createHttpServer((_request, response) => {
      held.push(response);
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const { port } = hanging.address() as AddressInfo;
    try {
      const { cli, listener } = await listen(`http://127.0.0.1:${port}/hooks`);
      await cliOnce(['trigger', 'message.received'], env());
      await eventually(
        () => held.length,
        (count) => count === 1,
      );
      cli.child.kill('SIGKILL');
      const log = await eventually(
        () => deliveries(service, tenant, listener.id),
        (rows) => rows.length === 1 && rows[0]!.status === 'failed',
      );
      expect(log[0]).toMatchObject({
        http_status: null,
        response_excerpt: 'not delivered: the listener disconnected before reporting the local answer',
      });
      expect(await noAnswerReason(listener.id, log[0]!.id)).toBe('listener_gone');
      // A new session of the same workspace gets later events only.
      const app = await receiver();
      const again = runCli(['listen', '--forward-to', app.url], env());
      running.push(again);
      app.setSecret((await listenerOf(again)).secret);
      await cliOnce(['trigger', 'contact.approved'], env());
      await again.printed(/contact\.approved\s+evt_[0-9a-f]+\s+-> 200/);
      expect(app.received.map((r) => r.type)).toEqual(['contact.approved']);
      expect(held).toHaveLength(1);
    } finally {
      for (const response of held) response.destroy();
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });

  it("forwards the exact headers (the service's user agent, nothing of fetch's) and keeps a NUL-free excerpt", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const local = createHttpServer((request, response) => {
      seen.push(request.headers);
      request.resume();
      request.on('end', () => response.end('ok\u0000bin'));
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    try {
      const { cli, listener } = await listen(
        `http://127.0.0.1:${(local.address() as AddressInfo).port}/hooks`,
      );
      await cliOnce(['trigger', 'message.received'], env());
      await cli.printed(/message\.received\s+evt_[0-9a-f]+\s+-> 200/);
      const log = await eventually(
        () => deliveries(service, tenant, listener.id),
        (rows) => rows.length === 1 && rows[0]!.status !== 'sending',
      );
      expect(log[0]).toMatchObject({ status: 'delivered', http_status: 200, response_excerpt: 'okbin' });
      expect(seen[0]!['user-agent']).toMatch(/^svc-kit-reference-service\//);
      expect(Object.keys(seen[0]!).sort()).toEqual(
        [
          'connection',
          'content-length',
          'content-type',
          'host',
          'user-agent',
          'x-service-delivery',
          'x-service-event-id',
          'x-service-event-type',
          'x-service-signature',
        ].sort(),
      );
    } finally {
      local.closeAllConnections();
      await new Promise((resolve) => local.close(resolve));
    }
  });

  it('holds nothing for a client that hangs up while its stream is set up', async () => {
    tenant = await createDeliveryTenant(service);
    const { port } = new URL(service.baseUrl);
    for (let i = 0; i < 5; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.write(
        `GET /relay/v1/listen HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.key}\r\n\r\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, 5 * i));
      socket.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const listeners = await store.db.query<{ id: string }>(
      'SELECT id FROM webhook_endpoints WHERE workspace_id = $1 AND listener_seen_at IS NOT NULL',
      [tenant.workspaceId],
    );
    for (const { id } of listeners) expect(service.relay.holds(id)).toBe(false);
  });

  it('ends a stream that lost its listener to another stream, even when the announcement was missed', async () => {
    const app = await receiver();
    const { cli, listener } = await listen(app.url);
    // As if another instance's stream took over and its NOTIFY never arrived here.
    await store.db.query('UPDATE webhook_endpoints SET listener_stream = $2 WHERE id = $1', [
      listener.id,
      'another-stream',
    ]);
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain('another listen session took over this listener');
    expect(service.relay.holds(listener.id)).toBe(false);
  });

  it('prints the secret with --print-secret even when SVC_WEBHOOK_SECRET already holds it', async () => {
    const app = await receiver();
    const { listener } = await listen(app.url);
    const printed = await cliOnce(['listen', '--print-secret'], {
      ...env(),
      SVC_WEBHOOK_SECRET: listener.secret,
    });
    expect(printed).toMatchObject({ code: 0, stdout: `${listener.secret}\n` });
  });

  it('refuses a key without service:workspace:admin, and an unknown key, in words', async () => {
    tenant = await createDeliveryTenant(service);
    const bad = await cliOnce(['listen', '--forward-to', 'http://127.0.0.1:9/x'], {
      ...env(),
      SVC_API_KEY: 'svc_0123456789abcdef_00',
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('401 unauthenticated');
    expect(bad.stderr).toContain('revoked, expired or mistyped');
    expect(bad.stderr).not.toContain('svc_0123456789abcdef_00');
  });

  it('lists the event types an endpoint may filter on', async () => {
    tenant = await createDeliveryTenant(service);
    const listed = await cliOnce(['events'], env());
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')).toContain('message.received');
  });

  // The relay's periodic check far off: a stream that ends within a test's time was ended by the
  // database's announcement of the change (features/listen/credential-watch.ts).
  describe('with the periodic check ten minutes away', () => {
    const watchedStore = useStore(backend);
    let watched: RelayService;
    beforeAll(async () => {
      watched = await startRelayService(watchedStore, {
        soleInstance: backend.name === 'pglite',
        streamCheckMs: 10 * 60_000,
      });
    });
    afterAll(async () => {
      await watched?.close();
    });

    it('stops with the reason as soon as its key is revoked, and the service closes the listener', async () => {
      const app = await receiver();
      const { cli, listener } = await listen(app.url, [], watched);
      const keyId = /^svc_([0-9a-f]+)_/.exec(tenant.key)![1]!;
      const revoked = await call(watched, 'DELETE', `/v1/workspace/keys/${keyId}`, {
        auth: { cookie: tenant.steppedUpSession },
        headers: { origin: new URL(watched.baseUrl).origin },
      });
      expect(revoked.status).toBe(204);
      expect(await cli.exited).toBe(1);
      expect(cli.stderr()).toMatch(/no longer authorizes this listener|API key was refused/);
      const rows = await watchedStore.db.query<{ deleted_at: number | null }>(
        'SELECT deleted_at FROM webhook_endpoints WHERE id = $1',
        [listener.id],
      );
      expect(rows[0]!.deleted_at).not.toBeNull();
    });

    it('stops saying the workspace is suspended, not that the key is bad, when it is suspended', async () => {
      const app = await receiver();
      const { cli } = await listen(app.url, [], watched);
      expect(await setWorkspaceFlag(watchedStore.db, tenant.workspaceId, 'suspended', true)).toBe(true);
      expect(await cli.exited).toBe(1);
      expect(cli.stderr()).toContain('the workspace is suspended, so its listener was closed');
      expect(cli.stderr()).not.toMatch(/no longer authorizes|API key was refused/);
    });
  });
});

describe('svc-webhooks listen and a clock that is off', () => {
  it("warns when the machine's clock is more than a minute away from the service's", async () => {
    const store = await BACKENDS[0]!.open();
    const service = await startRelayService(store, { soleInstance: true, now: () => Date.now() + 120_000 });
    const tenant = await createDeliveryTenant(service);
    const cli = runCli(['listen', '--forward-to', 'http://127.0.0.1:3000/webhooks'], {
      SVC_API_KEY: tenant.key,
      SVC_BASE_URL: service.baseUrl,
    });
    try {
      await cli.printed(/Your clock is 1[12][0-9] s behind the service's/);
      expect(cli.stderr()).toContain('Sync your clock');
    } finally {
      cli.child.kill('SIGKILL');
      await cli.exited;
      await service.close();
      await store.close();
    }
  });
});
