import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/domain/totp.js';
import { POSTGRES_ADMIN_URL } from '../support/backends.js';
import { buildEntryPoint, type ServiceProcess, spawnService } from '../support/service-process.js';
import { cookieOf, expectError, PASSWORD, portalCall, uniqueEmail } from './support.js';

/** The real entry point `npm start` runs (dist/main.js, without its tuning flags): what it prints, and sign-up as configured. */
describe('the started service and its portal block', () => {
  let entry: Awaited<ReturnType<typeof buildEntryPoint>>;
  const dirs: string[] = [];
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    entry = await buildEntryPoint();
  }, 120_000);
  afterAll(async () => {
    for (const service of running) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    await entry?.remove();
  });

  const start = async (env: Record<string, string>) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-start-'));
    dirs.push(dataDir);
    const service = spawnService(entry.main, {
      SVC_DATA_DIR: dataDir,
      SVC_PORTAL_DIR: join(dataDir, 'none'),
      ...env,
    });
    running.push(service);
    return service;
  };

  it('without a terminal, writes the first start’s secrets to a file of the data dir instead of stdout', async () => {
    const service = await start({ SVC_FIRST_START_SECRETS: 'file' });
    const baseUrl = await service.ready();
    await service.printed('readable by this user only');
    const output = service.output();
    const dataDir = dirs.at(-1)!;
    const file = join(dataDir, 'first-start.txt');
    expect(output).toContain(`are in ${file}`);
    expect(output).toContain('sign in with the sandbox owner (shown once, in the file below):');
    // Started with no setting, it says it is a local sandbox, and why.
    expect(output).toContain('Mode: local sandbox, because it listens on 127.0.0.1 only');
    expect(output).not.toMatch(/password:|TOTP secret:|svc_[A-Za-z0-9]/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const secrets = await readFile(file, 'utf8');
    const email = /email:\s+(\S+)/.exec(secrets)![1]!;
    const password = /password:\s+(\S+)/.exec(secrets)![1]!;
    expect(/API key \(all scopes\):\s+svc_\S+/.test(secrets)).toBe(true);
    const login = await portalCall(baseUrl, 'POST', '/v1/sessions', { body: { email, password } });
    expect(login.status).toBe(201);

    // Started again on the same data dir, it says where that password is rather than "printed".
    service.child.kill('SIGTERM');
    await service.exited;
    const again = spawnService(entry.main, {
      SVC_DATA_DIR: dataDir,
      SVC_PORTAL_DIR: join(dataDir, 'none'),
      SVC_FIRST_START_SECRETS: 'file',
    });
    running.push(again);
    await again.ready();
    await again.printed('already seeded');
    expect(again.output()).toContain(`with the password in ${file},`);
    expect(again.output()).not.toContain('password lost?');

    // Started with another at-rest key than the one its secrets were sealed with, it stops and says so.
    again.child.kill('SIGTERM');
    await again.exited;
    const otherKey = spawnService(entry.main, {
      SVC_DATA_DIR: dataDir,
      SVC_PORTAL_DIR: join(dataDir, 'none'),
      SVC_SECRET_KEY: 'ab'.repeat(32),
    });
    running.push(otherKey);
    expect(await otherKey.exited).toBe(1);
    expect(otherKey.output()).toContain(
      'cannot start: the at-rest key (SVC_SECRET_KEY) does not open the secrets this database already holds',
    );
  });

  it('prints the portal’s address and, on first start, a ready account that signs in and steps up', async () => {
    const service = await start({});
    const baseUrl = await service.ready();
    await service.printed('==== Portal ====');
    await service.printed('API key (all scopes):');
    const output = service.output();
    const origin = new URL(baseUrl).origin;
    expect(output).toContain(`open ${origin}/ in a browser`);
    expect(output).toContain('the portal is not built');
    expect(output).toContain('sign in with the sandbox owner (shown once, below):');
    const email = /email:\s+(\S+)/.exec(output)![1]!;
    const password = /password:\s+(\S+)/.exec(output)![1]!;
    const totp = /TOTP secret:\s+([A-Z2-7]+)/.exec(output)![1]!;
    // On its own port and data folder, the sandbox commands it suggests carry both, or they would act on
    // the instance of the defaults.
    expect(output).toContain(
      `or: PORT=${new URL(baseUrl).port} SVC_DATA_DIR=${/PGlite in (\S+)\)/.exec(output)![1]} npm run sandbox -- totp`,
    );
    const login = await portalCall(baseUrl, 'POST', '/v1/sessions', { body: { email, password } });
    expect(login.status).toBe(201);
    const cookie = cookieOf(login);
    const stepUp = await portalCall(baseUrl, 'POST', '/v1/sessions/step-up', {
      cookie,
      body: { code: currentTotp(totp, Date.now()) },
    });
    expect(stepUp.status).toBe(200);
    // Sign-up is open outside production, and the sandbox routes are served (the portal's test event).
    expect(
      (
        await portalCall(baseUrl, 'POST', '/v1/accounts', {
          body: { email: uniqueEmail(), password: PASSWORD },
        })
      ).status,
    ).toBe(201);
    const event = await portalCall(baseUrl, 'POST', '/sandbox/events', {
      cookie,
      body: { type: 'message.received' },
    });
    expect(event.status).toBeLessThan(300);

    // Started again, the password printed once is not shown again: the banner says how to start afresh.
    service.child.kill('SIGTERM');
    await service.exited;
    const dataDir = dirs.at(-1)!;
    const again = spawnService(entry.main, { SVC_DATA_DIR: dataDir, SVC_PORTAL_DIR: join(dataDir, 'none') });
    running.push(again);
    await again.ready();
    await again.printed('already seeded');
    expect(again.output()).toContain('with the password printed on its first start,');
    expect(again.output()).toContain(
      `(password lost? stop the service, delete ${dataDir} and start again: a fresh sandbox)`,
    );
  }, 120_000);

  it('with NODE_ENV=production sign-up is closed unless SVC_SIGNUP=open', async () => {
    const production = {
      NODE_ENV: 'production',
      SVC_PUBLIC_URL: 'https://svc.example',
      SVC_SECRET_KEY: 'b'.repeat(64),
    };
    const closed = await start(production);
    const closedUrl = await closed.ready();
    const refused = await portalCall(closedUrl, 'POST', '/v1/accounts', {
      body: { email: uniqueEmail(), password: PASSWORD },
      origin: 'https://svc.example',
    });
    expectError(refused, 403, 'forbidden');
    expect(JSON.stringify(refused.body)).toContain('sign-up is closed');
    const open = await start({ ...production, SVC_SIGNUP: 'open' });
    const openUrl = await open.ready();
    const accepted = await portalCall(openUrl, 'POST', '/v1/accounts', {
      body: { email: uniqueEmail(), password: PASSWORD },
      origin: 'https://svc.example',
    });
    expect(accepted.status).toBe(201);
  }, 120_000);

  it('stops in one line, without a stack, when its PostgreSQL database cannot be used', async () => {
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = '/svc_no_such_database';
    const service = await start({ DATABASE_URL: url.href });
    expect(await service.exited).toBe(1);
    const lines = service.output().trim().split('\n');
    expect(lines).toEqual([
      `cannot start: the PostgreSQL database in DATABASE_URL (${url.hostname}:${url.port || '5432'}, database svc_no_such_database) cannot be used: the database does not exist (3D000)`,
    ]);
  }, 60_000);
});
