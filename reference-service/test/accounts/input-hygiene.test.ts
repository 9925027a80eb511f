import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { accountService, expectError, freshAddress, PASSWORD, portalCall } from './support.js';

/**
 * E-mails, passwords and workspace names as a person sees them (attack notes of issue 17): one visible
 * address is one account, invisible characters are refused, the password rules bite only where they mean
 * something. The rules are the service's, not the database's, so PGlite alone runs them.
 */
describe('what sign-up accepts as an e-mail, a password and a name', () => {
  const running = accountService(BACKENDS[0]!);
  const signUp = (body: Record<string, string>) =>
    portalCall(running.service.baseUrl, 'POST', '/v1/accounts', { body, from: freshAddress() });
  const logIn = (email: string, password = PASSWORD) =>
    portalCall(running.service.baseUrl, 'POST', '/v1/sessions', {
      body: { email, password },
      from: freshAddress(),
    });
  const local = () => `jose${randomBytes(3).toString('hex')}`;

  it('takes an address typed composed, decomposed or full-width as one account', async () => {
    const name = local();
    expect((await signUp({ email: `${name}\u00e9@Example.com`, password: PASSWORD })).status).toBe(201);
    expectError(await signUp({ email: `${name}e\u0301@example.com`, password: PASSWORD }), 409, 'conflict');
    expect((await logIn(`${name}e\u0301@EXAMPLE.com`)).status).toBe(201);
    const wide = local();
    expect((await signUp({ email: `\uff41${wide}@example.com`, password: PASSWORD })).status).toBe(201);
    expect((await logIn(`a${wide}@example.com`)).status).toBe(201);
  });

  it('refuses invisible, bidi and other look-alike characters in an address or a workspace name', async () => {
    for (const email of [
      `${local()}@example.com\u200b`,
      `${local()}\u202e@example.com`,
      `${local()}\u00a0x@example.com`,
      `${local()}\ue000@example.com`,
    ])
      expectError(await signUp({ email, password: PASSWORD }), 400, 'invalid_request');
    expectError(
      await signUp({
        email: `${local()}@example.com`,
        password: PASSWORD,
        workspace_name: 'photos \u202egnp.exe',
      }),
      400,
      'invalid_request',
    );
  });

  it('checks the password against the whole address, and against a local part of four or more', async () => {
    const short = `a${randomBytes(2).toString('hex')}`.slice(0, 1);
    expect(
      (await signUp({ email: `${short}@b${local()}.co`, password: 'a plain long passphrase' })).status,
    ).toBe(201);
    const email = `${local()}@example.com`;
    expectError(await signUp({ email, password: `my ${email} secret` }), 400, 'invalid_request');
    expectError(
      await signUp({ email, password: `${email.split('@')[0]} and more words` }),
      400,
      'invalid_request',
    );
  });

  it('refuses a password of lone surrogates, which would all hash alike', async () => {
    const lone = Array.from({ length: 12 }, (_, i) => String.fromCharCode(0xd800 + i)).join('');
    const answer = await signUp({ email: `${local()}@example.com`, password: lone });
    expectError(answer, 400, 'invalid_request');
    expect((answer.body as { error: { message: string } }).error.message).toMatch(/not valid text/);
  });

  it('names an unnamed workspace neutrally, so cards handed to strangers do not carry the e-mail', async () => {
    const answer = await signUp({ email: `john.smith.${local()}@corp.example`, password: PASSWORD });
    expect(answer.status).toBe(201);
    const view = answer.body as { workspace: { name: string }; identities: { slug: string }[] };
    expect(view.workspace.name).toBe('My workspace');
    for (const { slug } of view.identities) {
      expect(slug).toMatch(/^my-workspace-[0-9a-f]{12}-(alice|bob)$/);
      expect(slug).not.toMatch(/john|smith/);
    }
  });
});

/**
 * Issue 41, finding 5: `user@probe.example.` (the root's trailing dot) signed up beside
 * `user@probe.example`, a second account for one mailbox. The uniqueness is the database's, so both run it.
 */
describe.each(BACKENDS)('one account per mailbox, however DNS spells its domain, on $name', (backend) => {
  const running = accountService(backend);
  const signUp = (email: string) =>
    portalCall(running.service.baseUrl, 'POST', '/v1/accounts', {
      body: { email, password: PASSWORD },
      from: freshAddress(),
    });

  it('takes a trailing dot and the ASCII form of an international domain as the same address', async () => {
    const name = `twin${randomBytes(3).toString('hex')}`;
    const first = await signUp(`${name}@probe.example`);
    expect(first.status).toBe(201);
    for (const twin of [
      `${name}@probe.example.`,
      `${name}@PROBE.example..`,
      ` ${name}@probe.example. `,
      `${name}@probe.example\u3002`,
    ])
      expectError(await signUp(twin), 409, 'conflict');
    const login = await portalCall(running.service.baseUrl, 'POST', '/v1/sessions', {
      body: { email: `${name}@probe.example.`, password: PASSWORD },
      from: freshAddress(),
    });
    expect(login.status).toBe(201);

    const intl = await signUp(`${name}@b\u00fccher.example`);
    expect(intl.status).toBe(201);
    expect((intl.body as { member: { email: string } }).member.email).toBe(`${name}@b\u00fccher.example`);
    expectError(await signUp(`${name}@xn--bcher-kva.example`), 409, 'conflict');
    expectError(await signUp(`${name}@xn--bcher-kva.example.`), 409, 'conflict');
    // Only the one row per mailbox was written.
    const rows = await running.store.db.query<{ email: string }>(
      'SELECT email FROM members WHERE email LIKE $1 ORDER BY email',
      [`${name}@%`],
    );
    expect(rows.map((row) => row.email)).toEqual([`${name}@b\u00fccher.example`, `${name}@probe.example`]);
  });
});
