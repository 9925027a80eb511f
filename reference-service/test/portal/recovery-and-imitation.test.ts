import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldName, imitatedIdentity } from '../../portal/src/pages/imitation.js';
import type { OpenedStore } from '../../src/store/open.js';
import { BACKENDS } from '../support/backends.js';
import { startFakePeer } from '../support/fake-peer.js';
import { stranger } from '../support/stranger.js';
import { expectAccessible, launchChromium, watchPage } from './support/browser.js';
import { type PortalInstance, startPortalInstance } from './support/instance.js';
import { enrolMfa, shownOnce, signUp } from './support/pages.js';
import { authenticator } from './support/totp.js';

const PASSWORD = 'a long pass phrase for the portal';
const EMAIL = 'recovery@portal.example';

/** A call from the page itself: the session cookie and the portal's origin, as the portal's own code sends. */
function fromPage(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ([method, path, body]) => {
      const answer = await fetch(path as string, {
        method: method as string,
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: answer.status, body: (await answer.json()) as unknown };
    },
    [method, path, body] as const,
  );
}

/** A stranger's signed contact request to `fingerprint`, its card naming itself `displayName`. */
async function strangerRequests(baseUrl: string, fingerprint: string, displayName: string) {
  const mallory = stranger();
  const now = Date.now();
  const body = JSON.stringify({ card: mallory.card(now, { display_name: displayName }) });
  const nonce = `imitation-${mallory.fingerprint.slice(7, 30)}`;
  const answer = await mallory.send(baseUrl, fingerprint, 'request', body, now, nonce);
  expect(answer.status).toBe(200);
}

describe('which contact names imitate an own identity', () => {
  const own = [{ slug: 'acme-0a1b2c-bob', fingerprint: 'sha256:own' }];
  it('folds case, width and separators, and spares the identity itself', () => {
    expect(foldName('ＡＣＭＥ_0a1b2c Bob')).toBe(foldName('acme-0a1b2c-bob'));
    expect(imitatedIdentity({ display_name: 'Acme 0A1B2C Bob', fingerprint: 'sha256:x' }, own)).toBe(
      'acme-0a1b2c-bob',
    );
    expect(imitatedIdentity({ display_name: 'acme-0a1b2c-bob', fingerprint: 'sha256:own' }, own)).toBe(
      undefined,
    );
    expect(imitatedIdentity({ display_name: 'acme-0a1b2c-bobby', fingerprint: 'sha256:x' }, own)).toBe(
      undefined,
    );
  });
});

/**
 * Issue 41 in the portal: a lost authenticator has a way back (a recovery code steps up, a new
 * authenticator replaces the old one, whose codes then fail), a password change asks a member with MFA
 * for a step-up, and a contact whose card name imitates one of the workspace's own identities is marked.
 */
describe.each(BACKENDS)(
  'recovery and look-alike contacts in the portal, on $name',
  { timeout: 60_000 },
  (backend) => {
    let store: OpenedStore;
    let service: PortalInstance;
    let browser: Browser;
    let page: Page;
    let watch: { errors: string[] };
    let recovery: string[];
    let oldSecret: string;
    let oldApp: ReturnType<typeof authenticator>;

    beforeAll(async () => {
      [store, browser] = await Promise.all([backend.open(), launchChromium()]);
      service = await startPortalInstance(store);
      page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
      watch = watchPage(page);
      await signUp(page, service.baseUrl, EMAIL, PASSWORD, 'Recovery');
      oldSecret = await enrolMfa(page, (secret) => {
        oldApp = authenticator(secret);
        return oldApp.next();
      });
      recovery = (await shownOnce(page, 'recovery-codes')).split('\n');
    }, 90_000);
    afterAll(async () => {
      await browser?.close();
      await service?.close();
      await store?.close();
    });

    const newDevice = async () => {
      const other = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
      await other.goto(`${service.baseUrl}/#/login`);
      await other.getByLabel('Email').fill(EMAIL);
      await other.getByLabel(/^Password/).fill(PASSWORD);
      await other.getByRole('button', { name: 'Log in' }).click();
      await other.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
      return other;
    };

    it('marks a stranger whose card name is one of the workspace’s own identities', async () => {
      const session = (await fromPage(page, 'GET', '/v1/session')).body as { identities: { slug: string }[] };
      const [first, second] = session.identities.map((identity) => identity.slug);
      const card = (await fromPage(page, 'GET', `/v1/identities/${first}/card`)).body as {
        fingerprint: string;
      };
      // The exact slug of the other identity, and one spelled with other case and separators.
      await strangerRequests(service.baseUrl, card.fingerprint, second!);
      await strangerRequests(service.baseUrl, card.fingerprint, second!.toUpperCase().replace(/-/g, ' '));
      await strangerRequests(service.baseUrl, card.fingerprint, 'an honest stranger');
      await page.goto(`${service.baseUrl}/#/contacts`);
      await page.getByLabel('Identity').selectOption(first!);
      const marks = page.getByTestId('imitation');
      await expect.poll(() => marks.count()).toBe(2);
      expect(await marks.first().textContent()).toContain(`Not your identity ${second}.`);
      const honest = page.locator('section.card', { hasText: 'an honest stranger' });
      expect(await honest.getByTestId('imitation').count()).toBe(0);
      await expectAccessible(page, 'contacts with a look-alike');
    });

    it('keeps many contacts readable: the words on presets and trust once, the list scrolling by itself', async () => {
      const session = (await fromPage(page, 'GET', '/v1/session')).body as { identities: { slug: string }[] };
      const second = session.identities[1]!.slug;
      const card = (await fromPage(page, 'GET', `/v1/identities/${second}/card`)).body as {
        fingerprint: string;
      };
      const many = 12;
      for (let n = 1; n <= many; n++) await strangerRequests(service.baseUrl, card.fingerprint, `Asker ${n}`);
      await page.goto(`${service.baseUrl}/#/contacts`);
      await page.getByLabel('Identity').selectOption(second);
      const rows = page.locator('[data-status="pending_in"]');
      await expect.poll(() => rows.count()).toBe(many);
      expect(await page.getByTestId('contact-count').textContent()).toBe(`${many} contacts`);
      // Said once for the page, not once per row; every select still has them as its description.
      const presets = page.getByTestId('preset-help');
      expect(await presets.count()).toBe(1);
      expect(await page.getByTestId('trust-help').count()).toBe(1);
      for (const select of await page.getByLabel('Preset when approving').all())
        expect(await select.getAttribute('aria-describedby')).toBe(await presets.getAttribute('id'));
      expect(await presets.isVisible()).toBe(false);
      await page.getByText('What the presets and trust settings mean').click();
      expect(await presets.isVisible()).toBe(true);
      expect(await presets.textContent()).toMatch(/colleague: may exchange messages and see the tools/);
      // The list scrolls in a region of its own, reachable by keyboard; the page around it stays short.
      const list = page.getByRole('region', { name: `Contacts of ${second}` });
      const box = await list.evaluate((element) => ({
        scrolls: element.scrollHeight > element.clientHeight,
        focusable: (element as HTMLElement).tabIndex >= 0,
      }));
      expect(box).toEqual({ scrolls: true, focusable: true });
      // The whole page is shorter than the list alone would be: the rows no longer make its length.
      const pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
      expect(pageHeight).toBeLessThan(await list.evaluate((element) => element.scrollHeight));
      await expectAccessible(page, 'contacts with many requests');
    });

    it('a request from a session that has not stepped up asks for the authenticator first', async () => {
      // The peer accepts at once: the request would end active, a grant a password alone must not make.
      const peer = await startFakePeer(Date.now, (verb) =>
        JSON.stringify(verb === 'request' ? { status: 'active' } : {}),
      );
      try {
        const laptop = await newDevice();
        await laptop.goto(`${service.baseUrl}/#/contacts`);
        await laptop.getByLabel('Their card').fill(peer.card);
        await laptop.getByRole('button', { name: 'Send request' }).click();
        const asked = laptop.getByRole('dialog', { name: 'Confirm it is you' });
        await asked.waitFor();
        // What is needed, said once.
        const words = (await asked.getByTestId('step-up-reason').textContent()) ?? '';
        expect(words).toMatch(/^The operation requestContact needs MFA/);
        expect(((await asked.textContent()) ?? '').match(/15 minutes/g), words).toHaveLength(1);
        await asked.getByLabel('Code from your authenticator app').fill(await oldApp.next());
        await asked.getByRole('button', { name: 'Confirm' }).click();
        await laptop.getByText(/already a contact/).waitFor();
        await laptop.locator(`[data-contact="${peer.fingerprint}"][data-status="active"]`).waitFor();
        // The status line was about that identity's request: another identity picked, it goes.
        const picker = laptop.getByLabel('Identity', { exact: true });
        const [, second] = await picker.locator('option').allTextContents();
        await picker.selectOption(second!);
        await laptop.getByRole('heading', { name: `Contacts of ${second}` }).waitFor();
        expect(await laptop.getByText(/already a contact/).count()).toBe(0);
        await laptop.close();
      } finally {
        await peer.close();
      }
    });

    it('a lost authenticator: a recovery code steps up, a new authenticator replaces the old one', async () => {
      const device = await newDevice();
      await device.goto(`${service.baseUrl}/#/mfa`);
      await device.getByRole('button', { name: 'Set up a new authenticator' }).click();
      const dialog = device.getByRole('dialog', { name: 'Confirm it is you' });
      await dialog.waitFor();
      await dialog.getByLabel('Use a recovery code instead').check();
      await dialog.getByLabel('Recovery code', { exact: true }).fill(recovery[0]!);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      const fresh = await shownOnce(device, 'totp-secret');
      expect(fresh).not.toBe(oldSecret);
      const app = authenticator(fresh);
      await device.getByLabel('First code from the app').fill(await app.next());
      await device.getByRole('button', { name: 'Confirm' }).click();
      await device.getByRole('heading', { name: 'MFA is on' }).waitFor();
      const codes = (await shownOnce(device, 'recovery-codes')).split('\n');
      expect(codes.filter((code) => recovery.includes(code))).toEqual([]);
      await expectAccessible(device, 'new authenticator');

      // The old authenticator and the old codes no longer step up; the new ones do.
      const later = await newDevice();
      const oldCode = await authenticator(oldSecret).next();
      expect((await fromPage(later, 'POST', '/v1/sessions/step-up', { code: oldCode })).status).toBe(403);
      expect(
        (await fromPage(later, 'POST', '/v1/sessions/step-up', { recovery_code: recovery[1] })).status,
      ).toBe(403);
      expect(
        (await fromPage(later, 'POST', '/v1/sessions/step-up', { recovery_code: codes[0] })).status,
      ).toBe(200);
      await later.close();

      // A password change from a session that has not stepped up asks for the new authenticator first.
      const laptop = await newDevice();
      await laptop.goto(`${service.baseUrl}/#/account`);
      await laptop.getByLabel('Current password').fill(PASSWORD);
      await laptop.getByLabel(/^New password/).fill(`${PASSWORD} renewed`);
      await laptop.getByRole('button', { name: 'Change password' }).click();
      const asked = laptop.getByRole('dialog', { name: 'Confirm it is you' });
      await asked.waitFor();
      await asked.getByLabel('Code from your authenticator app').fill(await app.next());
      await asked.getByRole('button', { name: 'Confirm' }).click();
      await laptop
        .getByText(/^Password changed\. \d+ other sessions? (was|were) signed out; this one stays\.$/)
        .waitFor();
      await laptop.close();
      await device.close();
      expect(watch.errors).toEqual([]);
    });
  },
);
