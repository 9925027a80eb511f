import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedStore } from '../../src/store/open.js';
import { openMemoryStore } from '../support/pglite-snapshot.js';
import { expectAccessible, launchChromium } from './support/browser.js';
import { type PortalInstance, startPortalInstance } from './support/instance.js';
import { enrolMfa, screenshot, shownOnce, signUp } from './support/pages.js';
import { authenticator } from './support/totp.js';

const PASSWORD = 'a long pass phrase for the portal';

/**
 * What the portal must refuse, seen in the browser: a member without service:workspace:admin cannot mint
 * a key (the refusal in words with its request id), and pages of another origin cannot ride the owner's
 * session or log a browser in. The refusals do not depend on the database, so PGlite alone runs them.
 */
describe('the portal refuses in the browser', { timeout: 60_000 }, () => {
  let store: OpenedStore;
  let service: PortalInstance;
  let browser: Browser;
  let owner: Page;
  let evil: Server;
  let evilOrigin: string;

  beforeAll(async () => {
    [store, browser] = await Promise.all([openMemoryStore(), launchChromium()]);
    service = await startPortalInstance(store);
    // Another origin on the same host (another port): same-site for the cookie, so only the origin check
    // stands between it and the owner's session.
    evil = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>elsewhere</title>
<form id="login" method="POST" action="${service.baseUrl}/v1/sessions" enctype="text/plain">
<input name='{"email":"x@example.com","password":"' value='whatever"}'><button>go</button></form>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    owner = await (await browser.newContext()).newPage();
    await signUp(owner, service.baseUrl, 'owner@portal.example', PASSWORD, 'Refusals');
    await enrolMfa(owner, (secret) => authenticator(secret).next());
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await new Promise((resolve) => evil?.close(resolve));
    await store?.close();
  });

  it('a member invited without service:workspace:admin cannot mint a key, and is told why', async () => {
    await owner.goto(`${service.baseUrl}/#/members`);
    await owner.getByLabel('Email').fill('member@portal.example');
    await owner.getByLabel('service:contacts:read').check();
    await owner.getByLabel('service:identities:read').check();
    await owner.getByRole('button', { name: 'Invite' }).click();
    const link = await shownOnce(owner, 'invite-link');
    await owner.getByRole('cell', { name: /member@portal\.example \(invited, not joined yet\)/ }).waitFor();
    await expectAccessible(owner, 'members');
    await screenshot(owner, 'members', true);

    const member = await (await browser.newContext()).newPage();
    await member.goto(link);
    await member.getByRole('heading', { name: 'Join the workspace' }).waitFor();
    await expectAccessible(member, 'joining by invite');
    await member.getByLabel(/^Password/).fill('another long pass phrase');
    await member.getByRole('button', { name: 'Join' }).click();
    await member.getByRole('heading', { name: 'Set up MFA' }).waitFor();
    await enrolMfa(member, (secret) => authenticator(secret).next());
    await expectAccessible(member, 'MFA is on');

    await member.goto(`${service.baseUrl}/#/keys`);
    // The picker offers the member's own permissions only.
    expect(await member.getByLabel('service:workspace:admin').count()).toBe(0);
    await member.getByRole('alert').first().waitFor();
    expect(await member.getByRole('alert').first().textContent()).toMatch(
      /Not allowed\..*service:workspace:admin/,
    );
    await member.getByLabel('Name').fill('mine');
    await member.getByLabel('service:contacts:read').check();
    await member.getByRole('button', { name: 'Mint key' }).click();
    const refusal = member.locator('form .problem');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(
      /Not allowed\..*does not hold the permission service:workspace:admin/,
    );
    expect(await refusal.textContent()).toMatch(/Request id: \S+/);
    expect(await member.getByTestId('api-key').count()).toBe(0);

    // Removed by the owner, the member's session ends at once.
    await owner.goto(`${service.baseUrl}/#/members`);
    owner.once('dialog', (dialog) => void dialog.accept());
    await owner.getByRole('button', { name: 'Remove member@portal.example' }).click();
    await owner.getByRole('button', { name: 'Remove member@portal.example' }).waitFor({ state: 'detached' });
    await member.reload();
    await member.getByRole('heading', { name: 'Log in' }).waitFor();
  });

  it('another origin cannot use the owner’s session, and cannot log the browser in', async () => {
    const page = await owner.context().newPage();
    await page.goto(evilOrigin);
    const statuses: number[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(service.baseUrl)) statuses.push(response.status());
    });
    // A "simple" cross-origin POST needs no preflight and carries the same-site cookie.
    await page.evaluate(async (target) => {
      await fetch(`${target}/v1/workspace/webhooks`, {
        method: 'POST',
        mode: 'no-cors',
        credentials: 'include',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ url: 'https://attacker.example/hooks' }),
      }).catch(() => undefined);
    }, service.baseUrl);
    await expect.poll(() => statuses).toEqual([403]);

    await Promise.all([page.waitForURL(`${service.baseUrl}/v1/sessions`), page.locator('button').click()]);
    expect(await page.textContent('body')).toContain('"code":"cross_site"');

    await owner.goto(`${service.baseUrl}/#/webhooks`);
    await owner.getByText('No endpoints yet.').waitFor();
  });

  it('a portal opened at another address says where to go on load; a signed-out load logs no error', async () => {
    const elsewhere = service.baseUrl.replace('127.0.0.1', 'localhost');
    for (const address of [service.baseUrl, elsewhere]) {
      const page = await (await browser.newContext()).newPage();
      const logged: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') logged.push(message.text());
      });
      await page.goto(`${address}/#/login`);
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      // Signed out is an answer, not a refusal: the browser has nothing to log.
      expect(logged, address).toEqual([]);
      const hint = page.getByTestId('wrong-origin');
      if (address === service.baseUrl) {
        expect(await hint.count()).toBe(0);
      } else {
        expect(await hint.textContent()).toContain(`This page is open at ${elsewhere}`);
        expect(await hint.getByRole('link').getAttribute('href')).toBe(`${service.baseUrl}/#/login`);
        await page.getByLabel('Email').fill('owner@portal.example');
        await page.getByLabel(/^Password/).fill(PASSWORD);
        await page.getByRole('button', { name: 'Log in' }).click();
        const refusal = page.locator('form .problem');
        await refusal.waitFor();
        expect(await refusal.textContent()).toMatch(
          /^Refused as a cross-site request\. A log-in must come from the service’s own origin;/,
        );
      }
      await page.context().close();
    }
  });
});
