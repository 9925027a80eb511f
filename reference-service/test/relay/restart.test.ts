// The service process restarted under a running `svc-webhooks listen`: the CLI reconnects to the same
// listener (same secret) and every event is delivered once.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Receiver, startExpressReceiver } from '../delivery/support.js';
import { initialisedDataDir } from '../support/pglite-snapshot.js';
import { buildEntryPoint, type ServiceProcess, spawnService } from '../support/service-process.js';
import { cliOnce, freePort, listenerOf, runCli } from './support.js';

describe('svc-webhooks listen across a restart of the service (PGlite, real processes)', () => {
  let entry: Awaited<ReturnType<typeof buildEntryPoint>>;
  let dataDir: string;
  let app: Receiver;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    entry = await buildEntryPoint();
    dataDir = await initialisedDataDir('svc-relay-restart-');
    app = await startExpressReceiver();
  });
  afterAll(async () => {
    for (const service of services) service.child.kill('SIGKILL');
    await app?.close();
    await rm(dataDir, { recursive: true, force: true });
    await entry?.remove();
  });

  it('reconnects to the same listener and delivers each event exactly once', async () => {
    const port = await freePort();
    const start = () => {
      const service = spawnService(entry.main, {
        SVC_DATA_DIR: dataDir,
        PORT: String(port),
        SVC_SECRET_KEY: 'a'.repeat(64),
      });
      services.push(service);
      return service;
    };
    const first = start();
    const baseUrl = await first.ready();
    await first.printed('API key (all scopes):');
    const apiKey = /API key \(all scopes\):\s+(svc_\S+)/.exec(first.output())![1]!;
    const env = { SVC_API_KEY: apiKey, SVC_BASE_URL: baseUrl };

    const listen = runCli(['listen', '--forward-to', app.url], env);
    try {
      const listener = await listenerOf(listen);
      app.setSecret(listener.secret);
      const before = await cliOnce(['trigger', 'message.received'], env);
      const beforeId = /^(evt_[0-9a-f]+)/.exec(before.stdout)![1]!;
      await listen.printed(new RegExp(`${beforeId}\\s+-> 200`));

      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      await listen.printed('Reconnecting in');
      const second = start();
      await second.ready();
      await listen.printed(`Reconnected (listener ${listener.id})`, 30_000);

      const after = await cliOnce(['trigger', 'contact.approved'], env);
      const afterId = /^(evt_[0-9a-f]+)/.exec(after.stdout)![1]!;
      await listen.printed(new RegExp(`${afterId}\\s+-> 200`));
      await eventually(
        () => app.received.length,
        (count) => count >= 2,
      );
      expect(app.received.map((r) => r.eventId)).toEqual([beforeId, afterId]);
      expect(app.refused).toBe(0);
    } finally {
      listen.child.kill('SIGKILL');
      await listen.exited;
    }
  });
});
