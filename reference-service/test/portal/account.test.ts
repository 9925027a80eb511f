import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaceForOwner } from '../../src/features/accounts/operator.js';
import type { OpenedStore } from '../../src/store/open.js';
import { openMemoryStore } from '../support/pglite-snapshot.js';
import { expectAccessible, launchChromium, watchPage } from './support/browser.js';
import { type PortalInstance, startPortalInstance } from './support/instance.js';
import { enrolMfa, screenshot, shownOnce, signUp } from './support/pages.js';
import { authenticator } from './support/totp.js';

const PASSWORD = 'a long pass phrase for the portal';
const NEW_PASSWORD = 'another long pass phrase, changed';
const EMAIL = 'account@portal.example';

/**
 * The person's own credentials and the refusals around them, in Chromium: revoking a key, a step-up with
 * a recovery code, new recovery codes (the old ones then fail), a password change that signs the other
 * session out, the sign-in limit's 429 with its retry time, and the OAuth callback's refusal page.
 * Nothing here depends on the database, so PGlite alone runs it.
 */
describe('the portal’s account page and refusals in words', { timeout: 60_000 }, () => {
  let store: OpenedStore;
  let service: PortalInstance;
  let browser: Browser;
  let page: Page;
  let watch: { errors: string[] };
  let recovery: string[];

  beforeAll(async () => {
    [store, browser] = await Promise.all([openMemoryStore(), launchChromium()]);
    service = await startPortalInstance(store);
    page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
    watch = watchPage(page);
    await signUp(page, service.baseUrl, EMAIL, PASSWORD, 'Account');
    await enrolMfa(page, (secret) => authenticator(secret).next());
    recovery = (await shownOnce(page, 'recovery-codes')).split('\n');
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await store?.close();
  });

  const logInAgain = async (target: Page, password = PASSWORD) => {
    await target.goto(`${service.baseUrl}/#/login`);
    if (await target.getByRole('button', { name: 'Log out' }).count()) {
      await target.getByRole('button', { name: 'Log out' }).click();
    }
    await target.getByRole('heading', { name: 'Log in' }).waitFor();
    await target.getByLabel('Email').fill(EMAIL);
    await target.getByLabel(/^Password/).fill(password);
    await target.getByRole('button', { name: 'Log in' }).click();
    await target.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
  };

  it('revokes a key: the row says so and the key no longer opens /v1', async () => {
    await page.goto(`${service.baseUrl}/#/keys`);
    await page.getByLabel('Name').fill('short-lived');
    await page.getByLabel('service:workspace:admin').check();
    await page.getByRole('button', { name: 'Mint key' }).click();
    const key = await shownOnce(page, 'api-key');
    const withKey = () =>
      fetch(`${service.baseUrl}/v1/workspace/webhooks`, { headers: { authorization: `Bearer ${key}` } });
    expect((await withKey()).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke key short-lived' }).click();
    await page.getByRole('cell', { name: /^revoked / }).waitFor();
    expect(await page.getByRole('button', { name: 'Revoke key short-lived' }).count()).toBe(0);
    expect((await withKey()).status).toBe(401);
  });

  it('steps up with a recovery code to make new ones; an old code is then refused in words', async () => {
    await logInAgain(page);
    await page.goto(`${service.baseUrl}/#/account`);
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await expectAccessible(page, 'account');
    await page.getByRole('button', { name: 'Make new recovery codes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.waitFor();
    await dialog.getByLabel('Use a recovery code instead').check();
    await dialog.getByLabel('Recovery code', { exact: true }).fill(recovery[0]!.toLowerCase());
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const fresh = (await shownOnce(page, 'recovery-codes')).split('\n');
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((code) => recovery.includes(code))).toEqual([]);
    await expectAccessible(page, 'new recovery codes');
    await screenshot(page, 'account', true);

    await logInAgain(page);
    await page.goto(`${service.baseUrl}/#/account`);
    await page.getByRole('button', { name: 'Make new recovery codes' }).click();
    await dialog.getByLabel('Use a recovery code instead').check();
    await dialog.getByLabel('Recovery code', { exact: true }).fill(recovery[1]!);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const refusal = dialog.getByRole('alert');
    await expect.poll(() => refusal.textContent()).toMatch(/recovery code did not verify or was used before/);
    expect(await refusal.textContent()).toMatch(/Request id: \S+/);
    await dialog.getByLabel('Recovery code', { exact: true }).fill(fresh[0]!);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(async () => (await shownOnce(page, 'recovery-codes')).split('\n')[0])
      .not.toBe(fresh[0]);
  });

  it('changes the password: a wrong current one is refused in words, the other session is signed out', async () => {
    const other = await (await browser.newContext()).newPage();
    await logInAgain(other);
    await page.goto(`${service.baseUrl}/#/account`);
    await page.getByLabel('Current password').fill('not my password at all');
    await page.getByLabel(/^New password/).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    const refusal = page.locator('form .problem');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/Not allowed\..*current password is not right/);
    expect(await refusal.textContent()).toMatch(/Request id: \S+/);

    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel(/^New password/).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText(/^Password changed\. 1 other session was signed out; this one stays\.$/).waitFor();
    expect(await refusal.count()).toBe(0);

    await other.reload();
    await other.getByRole('heading', { name: 'Log in' }).waitFor();
    await logInAgain(other, NEW_PASSWORD);
    await other.close();
  });

  it('shows the sign-in limit’s 429 with the time to wait', async () => {
    const stranger = await (await browser.newContext()).newPage();
    await stranger.goto(`${service.baseUrl}/#/login`);
    const alert = stranger.getByRole('alert');
    for (let attempt = 1; attempt <= 6; attempt++) {
      await stranger.getByLabel('Email').fill('nobody@portal.example');
      await stranger.getByLabel(/^Password/).fill(`guess number ${attempt}`);
      await stranger.getByRole('button', { name: 'Log in' }).click();
      await expect
        .poll(() => alert.textContent())
        .toMatch(attempt < 6 ? /wrong email or password/i : /Too many/);
    }
    const text = (await alert.textContent()) ?? '';
    expect(text).toMatch(/^Too many attempts\./);
    expect(text).toMatch(/Try again in \d+ s \(after \d{1,2}:\d{2}:\d{2}( [AP]M)?\)\./);
    expect(text).toMatch(/Request id: \S+/);
    await expectAccessible(stranger, 'sign-in refused 429');
    await screenshot(stranger, 'rate-limited', true);
    await stranger.close();
  });

  it('shows a refused OAuth return as a page in words with its request id and a way back', async () => {
    const answer = await page.goto(`${service.baseUrl}/oauth/integrations/callback?state=forged&code=x`);
    // A browser without the state's binding cookie is refused before the state is looked up (oauth-binding.ts).
    expect(answer?.status()).toBe(403);
    await page.getByRole('heading', { name: 'The authorization was not finished' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain(
      `Request id: ${answer?.headers()['x-request-id']}`,
    );
    // The page's own style applies under its CSP (a blocked style would leave the header unstyled).
    expect(await page.locator('header').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
      'rgb(18, 50, 79)',
    );
    await expectAccessible(page, 'OAuth callback refusal');
    await page.getByRole('link', { name: 'Back to the integrations page' }).click();
    await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
    expect(watch.errors).toEqual([]);
  });

  it('an invite link opened while signed in says it is for another account, and leads to it after logging out', async () => {
    // An invite of another workspace, made the operator's way (create-workspace).
    const { link } = await createWorkspaceForOwner(service.ctx, 'Elsewhere', 'elsewhere@portal.example');
    await logInAgain(page, NEW_PASSWORD);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Join another workspace?' }).waitFor();
    expect(await page.locator('main').textContent()).toContain(`signed in as ${EMAIL}`);
    await expectAccessible(page, 'invite while signed in');
    await page.getByRole('button', { name: 'Log out and accept the invite' }).click();
    await page.getByRole('heading', { name: 'Join the workspace' }).waitFor();
    await page.getByLabel(/^Password/).fill('a pass phrase for the other place');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('heading', { name: 'Set up MFA' }).waitFor();
    expect(await page.locator('header').textContent()).toContain('elsewhere@portal.example · Elsewhere');
    expect(watch.errors).toEqual([]);
  });
  it('says in words when the service cannot be reached, with its request id', async () => {
    const context = await browser.newContext();
    const lost = await context.newPage();
    // A proxy in front of the service answers for it: the portal's first call (the session check) fails.
    await lost.route(/\/v1\/session(\/state)?$/, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        headers: { 'x-request-id': 'req_proxy' },
        body: JSON.stringify({
          error: { code: 'service_unavailable', message: 'the database is away', request_id: 'req_proxy' },
        }),
      }),
    );
    await lost.goto(`${service.baseUrl}/#/webhooks`);
    await lost.getByRole('heading', { name: 'The portal could not reach the service' }).waitFor();
    expect(await lost.locator('main').textContent()).toMatch(/The database is away\..*req_proxy/s);
    await expectAccessible(lost, 'service unreachable');
    await context.close();
  });
});
