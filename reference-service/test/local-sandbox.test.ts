import { rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@svc-kit/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTotp } from '../src/domain/totp.js';
import { cookieOf, expectError, portalCall } from './accounts/support.js';
import { startStreamableUpstream, type Upstream } from './integrations/upstreams.js';
import { initialisedDataDir } from './support/pglite-snapshot.js';
import { rawCall } from './support/raw-call.js';
import { buildEntryPoint, type ServiceProcess, spawnService } from './support/service-process.js';
import { until } from './support/until.js';

/** What the first start prints that a newcomer uses: the API key, the owner's secrets, the cards. */
function firstStart(output: string) {
  const field = (pattern: RegExp) => {
    const value = pattern.exec(output)?.[1];
    if (value === undefined) throw new Error(`${pattern} is not in the output:\n${output}`);
    return value;
  };
  const cards = new Map<string, { fingerprint: string; card: string }>();
  for (const match of output.matchAll(
    /contact card of (\S+) \((sha256:[0-9a-f]{64})\):\s+(svc-card\.v1\.\S+)/g,
  )) {
    cards.set(match[1]!, { fingerprint: match[2]!, card: match[3]! });
  }
  return {
    apiKey: field(/API key \(all scopes\):\s+(\S+)/),
    email: field(/email:\s+(\S+)/),
    password: field(/password:\s+(\S+)/),
    totp: field(/TOTP secret:\s+([A-Z2-7]+)/),
    cards,
  };
}

/** A receiver on this machine, as the quickstart runs one: it keeps what it was sent. */
async function localReceiver(): Promise<{
  url: string;
  got: { headers: IncomingHttpHeaders; body: string }[];
  server: Server;
}> {
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, got, server };
}

/**
 * The real entry point `npm start` runs, with no setting: a local sandbox in which the quickstart's
 * receiver, contacts between the seeded identities and a local MCP server all work; and, with each setting
 * that says others may reach it, the same targets refused, the refusal naming what would admit them.
 */
describe('the local sandbox and its guard', () => {
  let entry: Awaited<ReturnType<typeof buildEntryPoint>>;
  let upstream: Upstream;
  let sandbox: ServiceProcess;
  const dirs: string[] = [];
  const running: ServiceProcess[] = [];
  const servers: Server[] = [];

  beforeAll(async () => {
    entry = await buildEntryPoint();
    upstream = await startStreamableUpstream();
    // At the default log level, as `npm start` runs: what is logged at info shows before or after the banner.
    sandbox = await start({ LOG_LEVEL: 'info' });
  }, 120_000);
  afterAll(async () => {
    for (const service of running) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    for (const server of servers) server.close();
    await upstream?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    await entry?.remove();
  });

  const start = async (env: Record<string, string>) => {
    const dataDir = await initialisedDataDir('svc-local-');
    dirs.push(dataDir);
    const service = spawnService(entry.main, { SVC_DATA_DIR: dataDir, SVC_PORTAL_DIR: dataDir, ...env });
    running.push(service);
    return service;
  };

  it('started with no setting, accepts a local receiver, the seeded identities’ contact and a local MCP server', async () => {
    const baseUrl = await sandbox.ready();
    await sandbox.printed('Ctrl-C stops the service');
    const output = sandbox.output();
    expect(output).toContain('Mode: local sandbox, because it listens on 127.0.0.1 only');
    expect(output).toContain('webhook receivers, peers and MCP servers on localhost are accepted');
    // What a newcomer needs first: the address, the portal and the mode before the long contact cards.
    expect(output.indexOf('listening on')).toBeLessThan(output.indexOf('contact card of'));
    // The banner is the first thing printed: no JSON log line above it (Fastify's own "Server listening").
    expect(output.trimStart()).toMatch(/^svc-kit reference service listening on /);
    expect(output).not.toContain('Server listening');
    // Nor inside it: the banner, the cards and the ready line are one block, the log lines come after.
    const banner = output.slice(0, output.indexOf('Ctrl-C stops the service'));
    expect(banner.split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
    expect(output.indexOf('Mode: local sandbox')).toBeLessThan(output.indexOf('contact card of'));
    const seeded = firstStart(output);
    const api = new Client({ apiKey: seeded.apiKey, baseUrl, maxRetries: 0 });

    // Contacts between the two seeded identities, whose cards name this instance on 127.0.0.1.
    const alice = seeded.cards.get('sandbox-alice')!;
    const bob = seeded.cards.get('sandbox-bob')!;
    expect(await api.contacts.request('sandbox-alice', { card: bob.card })).toMatchObject({
      status: 'pending',
      contact: { endpoint: `${baseUrl}/peer/v1` },
    });
    expect(await api.contacts.approve('sandbox-bob', alice.fingerprint)).toMatchObject({
      status: 'approved',
      notified: true,
    });
    expect((await api.contacts.list('sandbox-alice')).contacts).toEqual([
      expect.objectContaining({ fingerprint: bob.fingerprint, status: 'active' }),
    ]);

    // An MCP server on this machine.
    const created = await api.integrations.create('sandbox-alice', {
      slug: 'local-mcp',
      endpoint: upstream.url,
    });
    expect(created.integration).toMatchObject({ status: 'healthy' });
    expect(created.tools).toBe(2);

    // The quickstart's receiver on localhost: registered with a stepped-up session, then sent a test event.
    const receiver = await localReceiver();
    servers.push(receiver.server);
    const login = await portalCall(baseUrl, 'POST', '/v1/sessions', {
      body: { email: seeded.email, password: seeded.password },
    });
    const cookie = cookieOf(login);
    const stepUp = await portalCall(baseUrl, 'POST', '/v1/sessions/step-up', {
      cookie,
      body: { code: currentTotp(seeded.totp, Date.now()) },
    });
    expect(stepUp.status).toBe(200);
    const webhook = await portalCall(baseUrl, 'POST', '/v1/workspace/webhooks', {
      cookie,
      body: { url: receiver.url, events: ['message.received'] },
    });
    expect(webhook.status).toBe(201);
    const event = await portalCall(baseUrl, 'POST', '/sandbox/events', {
      cookie,
      body: { type: 'message.received' },
    });
    expect(event.status).toBeLessThan(300);
    await until(() => receiver.got.length > 0);
    expect(receiver.got[0]!.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(JSON.parse(receiver.got[0]!.body)).toMatchObject({ type: 'message.received' });
  }, 120_000);

  const reachable: [string, Record<string, string>, string][] = [
    [
      'a public URL that is not loopback',
      { SVC_PUBLIC_URL: 'https://svc.example' },
      'SVC_PUBLIC_URL=https://svc.example is not loopback',
    ],
    [
      'trusted proxies',
      { SVC_TRUSTED_PROXIES: '127.0.0.1' },
      'SVC_TRUSTED_PROXIES=127.0.0.1 names a reverse proxy',
    ],
    ['a listening address beyond loopback', { HOST: '0.0.0.0' }, 'HOST=0.0.0.0 listens beyond loopback'],
  ];
  for (const [what, env, why] of reachable) {
    it(`with ${what}, refuses targets on localhost and names what would admit them`, async () => {
      const service = await start(env);
      const listening = await service.ready();
      await service.printed('Ctrl-C stops the service');
      const output = service.output();
      expect(output).toContain(`Mode: reachable from elsewhere, because ${why}:`);
      expect(output).toContain('targets on localhost (webhook receivers, peers, MCP servers) are refused');
      const baseUrl = listening.replace('0.0.0.0', '127.0.0.1');
      const { apiKey, cards } = firstStart(output);
      const call = (path: string, body: unknown) =>
        rawCall(baseUrl, 'POST', path, { headers: { authorization: `Bearer ${apiKey}` }, body });
      const mcp = await call('/v1/identities/sandbox-alice/integrations', { endpoint: upstream.url });
      expectError(mcp, 400, 'invalid_request');
      expect(JSON.stringify(mcp.body)).toContain('SVC_ALLOW_LOCALHOST_INTEGRATIONS=1');
      expect(JSON.stringify(mcp.body)).toContain('this service may be reached from elsewhere');
      // The card of another local instance (the sandbox's) is refused the same way.
      await sandbox.printed('Ctrl-C stops the service');
      const card = firstStart(sandbox.output()).cards.get('sandbox-bob')!.card;
      const contact = await call('/v1/identities/sandbox-alice/contacts', { card });
      expectError(contact, 400, 'invalid_request');
      expect(JSON.stringify(contact.body)).toContain('SVC_ALLOW_LOCALHOST_PEERS=1');
      expect(cards.size).toBe(2);
    }, 120_000);
  }

  it('with NODE_ENV=production, says so at start: localhost targets are refused and no opt-in exists', async () => {
    const service = await start({
      NODE_ENV: 'production',
      // A loopback public URL (a proxy in front that it does not name): production alone keeps the guard.
      SVC_PUBLIC_URL: 'https://127.0.0.1:8443',
      SVC_SECRET_KEY: 'c'.repeat(64),
    });
    await service.ready();
    await service.printed('Ctrl-C stops the service');
    expect(service.output()).toContain('Mode: reachable from elsewhere, because NODE_ENV=production:');
  }, 120_000);
});
