import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { ConfigError } from '../src/env-settings.js';
import { defaultMaxConnections } from '../src/http/connection-limits.js';

describe('configuration', () => {
  it('defaults to PGlite in the package’s .data folder on 127.0.0.1:8080', () => {
    const config = readConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      databaseUrl: undefined,
    });
    expect(config.dataDir).toMatch(/reference-service[/\\]\.data$/);
  });

  const localTargets = (config: ReturnType<typeof readConfig>) => [
    config.allowLocalhostWebhooks,
    config.peer.allowLocalhost,
    config.integrations.allowLocalhost,
  ];

  it('is a local sandbox with no setting: receivers, peers and MCP servers on localhost are admitted', () => {
    for (const env of [{}, { HOST: '::1' }, { HOST: 'localhost' }, { HOST: '127.0.0.2' }]) {
      const config = readConfig(env);
      expect(config.reach).toMatchObject({ local: true, reachableBecause: [] });
      expect(config.reach.why).toContain('with no public URL, trusted proxy or NODE_ENV=production');
      expect(localTargets(config)).toEqual([true, true, true]);
    }
    // A public URL on this machine (another port, a local TLS proxy) says nothing about others.
    for (const SVC_PUBLIC_URL of ['http://127.0.0.1:9000', 'https://localhost', 'http://[::1]:8080']) {
      expect(localTargets(readConfig({ SVC_PUBLIC_URL }))).toEqual([true, true, true]);
      expect(localTargets(readConfig({ SVC_PUBLIC_ORIGIN: SVC_PUBLIC_URL }))).toEqual([true, true, true]);
    }
  });

  it('keeps localhost targets refused whenever anything says others may reach the service', () => {
    const production = { NODE_ENV: 'production', SVC_PUBLIC_URL: 'https://127.0.0.1:8443' };
    const cases: [Record<string, string>, string, string][] = [
      [
        { SVC_PUBLIC_URL: 'https://svc.example' },
        'SVC_PUBLIC_URL is not a loopback address',
        'SVC_PUBLIC_URL=https://svc.example is not loopback',
      ],
      [
        { SVC_PUBLIC_URL: 'http://192.168.1.4:8080' },
        'SVC_PUBLIC_URL is not a loopback address',
        '192.168.1.4',
      ],
      [
        { SVC_PUBLIC_ORIGIN: 'https://portal.example' },
        'SVC_PUBLIC_ORIGIN is not a loopback address',
        'portal.example',
      ],
      [
        { SVC_TRUSTED_PROXIES: '127.0.0.1' },
        'SVC_TRUSTED_PROXIES names a reverse proxy',
        'SVC_TRUSTED_PROXIES=127.0.0.1',
      ],
      [{ HOST: '0.0.0.0' }, 'HOST listens beyond loopback', 'HOST=0.0.0.0 listens beyond loopback'],
      [{ HOST: '::' }, 'HOST listens beyond loopback', 'HOST=::'],
      [{ HOST: '192.168.1.4' }, 'HOST listens beyond loopback', 'HOST=192.168.1.4'],
      [{ HOST: 'svc.lan' }, 'HOST listens beyond loopback', 'HOST=svc.lan'],
      [
        { NODE_ENV: 'production', SVC_PUBLIC_URL: 'https://svc.example' },
        'NODE_ENV=production',
        'NODE_ENV=production',
      ],
    ];
    for (const [env, reason, why] of cases) {
      const config = readConfig(env);
      expect(config.reach.local, JSON.stringify(env)).toBe(false);
      expect(config.reach.reachableBecause).toContain(reason);
      expect(config.reach.why).toContain(why);
      expect(localTargets(config)).toEqual([false, false, false]);
    }
    // Production on a loopback URL (a proxy in front that the URL does not name) is still production.
    expect(readConfig(production).reach).toMatchObject({ local: false, production: true });
    expect(localTargets(readConfig(production))).toEqual([false, false, false]);
  });

  it('admits localhost targets where others may reach the service only on request, never in production', () => {
    expect(localTargets(readConfig({ HOST: '0.0.0.0', SVC_ALLOW_LOCALHOST_WEBHOOKS: '1' }))).toEqual([
      true,
      false,
      false,
    ]);
    expect(
      localTargets(
        readConfig({
          HOST: '0.0.0.0',
          SVC_ALLOW_LOCALHOST_PEERS: '1',
          SVC_ALLOW_LOCALHOST_INTEGRATIONS: '1',
        }),
      ),
    ).toEqual([false, true, true]);
    expect(readConfig({ HOST: '0.0.0.0', SVC_ALLOW_LOCALHOST_WEBHOOKS: 'true' }).allowLocalhostWebhooks).toBe(
      false,
    );
    for (const name of [
      'SVC_ALLOW_LOCALHOST_WEBHOOKS',
      'SVC_ALLOW_LOCALHOST_PEERS',
      'SVC_ALLOW_LOCALHOST_INTEGRATIONS',
    ])
      expect(() =>
        readConfig({ [name]: '1', NODE_ENV: 'production', SVC_PUBLIC_URL: 'https://svc.example' }),
      ).toThrow(`${name}=1 is a sandbox setting and is refused with NODE_ENV=production`);
  });

  it('lowers the password cost only for test suites, never in production', () => {
    expect(readConfig({}).passwordCost).toBe('standard');
    expect(readConfig({ SVC_PASSWORD_COST: 'test' }).passwordCost).toBe('test');
    expect(() => readConfig({ SVC_PASSWORD_COST: 'cheap' })).toThrow(ConfigError);
    expect(() =>
      readConfig({
        SVC_PASSWORD_COST: 'test',
        NODE_ENV: 'production',
        SVC_PUBLIC_URL: 'https://svc.example',
      }),
    ).toThrow(/refused with NODE_ENV=production/);
  });

  it('budgets sandbox test events unless told not to', () => {
    expect(readConfig({}).testEventBudget).toBe(true);
    expect(readConfig({ SVC_TEST_EVENT_BUDGET: 'off' }).testEventBudget).toBe(false);
    expect(() => readConfig({ SVC_TEST_EVENT_BUDGET: 'no' })).toThrow(ConfigError);
  });

  it('reads where the first start’s secrets go: stdout, a file, or unset (the terminal decides)', () => {
    expect(readConfig({}).firstStartSecrets).toBeUndefined();
    expect(readConfig({ SVC_FIRST_START_SECRETS: '' }).firstStartSecrets).toBeUndefined();
    expect(readConfig({ SVC_FIRST_START_SECRETS: 'stdout' }).firstStartSecrets).toBe('stdout');
    expect(readConfig({ SVC_FIRST_START_SECRETS: 'file' }).firstStartSecrets).toBe('file');
    expect(() => readConfig({ SVC_FIRST_START_SECRETS: 'screen' })).toThrow(ConfigError);
  });

  it('reads the delivery lease, and refuses one that is not whole milliseconds from a second to a day', () => {
    expect(readConfig({}).deliveryLeaseMs).toBeUndefined();
    expect(readConfig({ SVC_DELIVERY_LEASE_MS: '4000' }).deliveryLeaseMs).toBe(4000);
    expect(readConfig({ SVC_DELIVERY_LEASE_MS: '86400000' }).deliveryLeaseMs).toBe(86_400_000);
    // Past a day, and a number too long to be finite: the sweeper's timer would fire every millisecond.
    const tooLong = ['86400001', `1${'0'.repeat(400)}`];
    for (const SVC_DELIVERY_LEASE_MS of ['999', '0', '-5000', '1.5e3x', '2500.5', 'soon', ...tooLong])
      expect(() => readConfig({ SVC_DELIVERY_LEASE_MS })).toThrow(ConfigError);
  });

  it('reads the database wait (100 ms to 2 minutes) and the shutdown grace (1 s to 10 minutes)', () => {
    expect(readConfig({}).databaseWaitMs).toBe(5_000);
    expect(readConfig({ SVC_DATABASE_WAIT_MS: '250' }).databaseWaitMs).toBe(250);
    for (const SVC_DATABASE_WAIT_MS of ['0', '99', '120001', '1.5', '1e3', 'soon', ' 500', '0500'])
      expect(() => readConfig({ SVC_DATABASE_WAIT_MS })).toThrow(ConfigError);
    expect(readConfig({}).shutdownGraceMs).toBe(25_000);
    expect(readConfig({ SVC_SHUTDOWN_GRACE_MS: '1000' }).shutdownGraceMs).toBe(1_000);
    expect(readConfig({ SVC_SHUTDOWN_GRACE_MS: '600000' }).shutdownGraceMs).toBe(600_000);
    for (const SVC_SHUTDOWN_GRACE_MS of ['0', '999', '600001', '2.5e3', '-1000', 'never', '01000'])
      expect(() => readConfig({ SVC_SHUTDOWN_GRACE_MS })).toThrow(/SVC_SHUTDOWN_GRACE_MS/);
  });

  it('reads the request rate per workspace: 50 a second unless told, 0 to lift it', () => {
    expect(readConfig({}).workspaceRequestRate).toBe(50);
    expect(readConfig({ SVC_WORKSPACE_REQUEST_RATE: '0' }).workspaceRequestRate).toBe(0);
    expect(readConfig({ SVC_WORKSPACE_REQUEST_RATE: '100000' }).workspaceRequestRate).toBe(100_000);
    for (const SVC_WORKSPACE_REQUEST_RATE of ['-1', '100001', '2.5', 'off', '050'])
      expect(() => readConfig({ SVC_WORKSPACE_REQUEST_RATE })).toThrow(/SVC_WORKSPACE_REQUEST_RATE/);
  });

  it('reads how many days events and delivery logs are kept, from 1 to 3650', () => {
    const day = 24 * 60 * 60 * 1000;
    expect(readConfig({}).retention.keepMs).toBe(30 * day);
    expect(readConfig({ SVC_RETENTION_DAYS: '1' }).retention.keepMs).toBe(day);
    expect(readConfig({ SVC_RETENTION_DAYS: '3650' }).retention.keepMs).toBe(3650 * day);
    for (const SVC_RETENTION_DAYS of ['0', '3651', '1.5', '1e2', 'forever', ' 7', '07', '-3'])
      expect(() => readConfig({ SVC_RETENTION_DAYS })).toThrow(/SVC_RETENTION_DAYS/);
  });

  it('requires SVC_PUBLIC_URL in production, https there, and refuses a URL that is not a plain base URL', () => {
    expect(() => readConfig({ NODE_ENV: 'production' })).toThrow(/SVC_PUBLIC_URL is required/);
    expect(readConfig({ NODE_ENV: 'production', SVC_PUBLIC_URL: 'https://svc.example/' })).toMatchObject({
      publicUrl: 'https://svc.example',
    });
    expect(() => readConfig({ NODE_ENV: 'production', SVC_PUBLIC_URL: 'http://svc.example' })).toThrow(
      ConfigError,
    );
    expect(readConfig({ SVC_PUBLIC_URL: 'http://127.0.0.1:9000' }).publicUrl).toBe('http://127.0.0.1:9000');
    expect(readConfig({}).publicUrl).toBeUndefined();
    for (const SVC_PUBLIC_URL of [
      'svc.example',
      'ftp://svc.example',
      'https://u:p@svc.example',
      'https://svc.example/?a=1',
      'https://svc.example/#x',
    ])
      expect(() => readConfig({ SVC_PUBLIC_URL })).toThrow(ConfigError);
  });

  it('reads trusted proxies as addresses or CIDR ranges', () => {
    expect(readConfig({}).trustedProxies).toEqual([]);
    expect(readConfig({ SVC_TRUSTED_PROXIES: '10.0.0.1, 10.1.0.0/16,::1' }).trustedProxies).toEqual([
      '10.0.0.1',
      '10.1.0.0/16',
      '::1',
    ]);
    expect(() => readConfig({ SVC_TRUSTED_PROXIES: 'proxy.internal' })).toThrow(ConfigError);
  });

  it('resolves outbound names with the system DNS servers, or those SVC_DNS_SERVERS names', () => {
    expect(readConfig({}).dnsServers).toBeUndefined();
    expect(readConfig({ SVC_DNS_SERVERS: '' }).dnsServers).toBeUndefined();
    expect(
      readConfig({ SVC_DNS_SERVERS: '127.0.0.1:5353, 1.1.1.1,[2606:4700::1111]:53,::1' }).dnsServers,
    ).toEqual(['127.0.0.1:5353', '1.1.1.1', '[2606:4700::1111]:53', '::1']);
    // Port 0 would abort the process inside c-ares, and 65536 would be dropped without a word.
    for (const SVC_DNS_SERVERS of [
      'dns.example',
      '127.0.0.1:0',
      '127.0.0.1:65536',
      '1.1.1.1:053',
      '::1:53x',
      '[1.1.1.1]',
    ])
      expect(() => readConfig({ SVC_DNS_SERVERS })).toThrow(/SVC_DNS_SERVERS/);
  });

  it('serves metrics only when SVC_METRICS_PORT is set, on loopback unless told otherwise', () => {
    expect(readConfig({}).metrics).toBeUndefined();
    expect(readConfig({ SVC_METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(readConfig({ SVC_METRICS_PORT: '0', SVC_METRICS_HOST: '0.0.0.0' }).metrics).toEqual({
      host: '0.0.0.0',
      port: 0,
    });
    for (const SVC_METRICS_PORT of ['-1', '65536', 'on', '1.5', ' 9464', '09464'])
      expect(() => readConfig({ SVC_METRICS_PORT })).toThrow(ConfigError);
    // Checked before anything binds: the API would otherwise be serving when the metrics port failed.
    expect(() => readConfig({ PORT: '9464', SVC_METRICS_PORT: '9464' })).toThrow(/must differ from PORT/);
    expect(readConfig({ PORT: '0', SVC_METRICS_PORT: '0' }).metrics?.port).toBe(0);
    for (const SVC_METRICS_HOST of ['not_a_host!', 'http://127.0.0.1', '127.0.0.1:9464', 'a..b'])
      expect(() => readConfig({ SVC_METRICS_PORT: '9464', SVC_METRICS_HOST })).toThrow(/SVC_METRICS_HOST/);
    for (const SVC_METRICS_HOST of ['::1', '::', 'localhost', 'metrics.internal'])
      expect(readConfig({ SVC_METRICS_PORT: '9464', SVC_METRICS_HOST }).metrics?.host).toBe(SVC_METRICS_HOST);
  });

  it('listens on an IP address or a host name only', () => {
    expect(readConfig({}).host).toBe('127.0.0.1');
    expect(readConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    for (const HOST of ['http://0.0.0.0', '0.0.0.0:8080', 'bad host'])
      expect(() => readConfig({ HOST })).toThrow(/HOST must be/);
  });

  it('refuses an unusable port', () => {
    for (const PORT of ['-1', '65536', 'http', '1.5'])
      expect(() => readConfig({ PORT })).toThrow(ConfigError);
  });

  it('bounds the connections: a request deadline, an idle timeout and two caps, each checked', () => {
    expect(readConfig({}).connections).toMatchObject({
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      connectionTimeoutMs: 60_000,
      maxConnectionsPerAddress: 64,
    });
    const set = readConfig({ SVC_REQUEST_TIMEOUT_MS: '5000', SVC_MAX_CONNECTIONS: '100' }).connections;
    expect(set).toMatchObject({ requestTimeoutMs: 5_000, headersTimeoutMs: 5_000, maxConnections: 100 });
    for (const [name, value] of [
      ['SVC_REQUEST_TIMEOUT_MS', '999'],
      ['SVC_CONNECTION_TIMEOUT_MS', 'soon'],
      ['SVC_MAX_CONNECTIONS', '0'],
      ['SVC_MAX_CONNECTIONS_PER_ADDRESS', '1.5'],
    ] as const) {
      expect(() => readConfig({ [name]: value })).toThrow(new RegExp(name));
      expect(() => readConfig({ [name]: value })).toThrow(ConfigError);
    }
  });

  it('holds at most half the open-files limit by default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-limits-'));
    const file = join(dir, 'limits');
    writeFileSync(
      file,
      'Limit                     Soft Limit           Hard Limit           Units     \n' +
        'Max open files            1024                 524288               files     \n',
    );
    expect(defaultMaxConnections(file)).toBe(512);
    expect(defaultMaxConnections(join(dir, 'missing'))).toBe(4_096);
    // A host that allows about a billion open files: the default stays one the setting accepts.
    writeFileSync(
      file,
      'Limit                     Soft Limit           Hard Limit           Units     \n' +
        'Max open files            1073741816           1073741816           files     \n',
    );
    expect(defaultMaxConnections(file)).toBe(1_000_000);
  });
});
