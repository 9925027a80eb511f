import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedStore } from '../../src/store/open.js';
import { BACKENDS } from '../support/backends.js';
import { expectAccessible, launchChromium, watchPage } from './support/browser.js';
import { type PortalInstance, startPortalInstance } from './support/instance.js';
import { eventually, screenshot, shownOnce, signUp } from './support/pages.js';
import { startReceiver, type TestReceiver } from './support/receiver.js';
import { authenticator } from './support/totp.js';

const PASSWORD = 'a long pass phrase for the portal';

/**
 * A newcomer's first session in the portal, in Debian's Chromium against the real service: sign up, enrol
 * MFA, mint a key, register an endpoint at a receiver that verifies with the SDK, send a test event and
 * watch it arrive in the live log, rotate (both secrets verify), pause (nothing is sent), and a step-up
 * refused for a wrong code. Screenshots for the guide come from the PGlite run.
 */
describe.each(BACKENDS)('the portal journey on $name', { timeout: 60_000 }, (backend) => {
  const shots = backend.name === 'pglite';
  let store: OpenedStore;
  let service: PortalInstance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: TestReceiver;
  let watch: { errors: string[] };
  let totp: ReturnType<typeof authenticator> | undefined;
  // Each run has a database of its own, so one address fits every run (and the screenshots stay alike).
  const email = 'newcomer@portal.example';

  beforeAll(async () => {
    [store, browser, receiver] = await Promise.all([backend.open(), launchChromium(), startReceiver()]);
    service = await startPortalInstance(store);
    // 1,280 px wide: the header must hold on one line there.
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    watch = watchPage(page);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await receiver?.close();
    await store?.close();
  });

  const code = async (secret: string) => {
    totp ??= authenticator(secret);
    return totp.next();
  };
  const logRows = () => page.locator('[data-testid="delivery-log"] tbody.attempt');

  it('signs up and enrols MFA from the QR page', async () => {
    await page.goto(`${service.baseUrl}/#/signup`);
    await page.getByRole('heading', { name: 'Create your sandbox account' }).waitFor();
    // The password rules are stated before anything is typed, and checked while typing.
    expect(await page.locator('#password-rules').textContent()).toMatch(/12 to 256 characters/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel(/^Password/).fill('newcomer-portal');
    expect(await page.locator('#password-check').textContent()).toMatch(
      /must not contain the e-mail address/,
    );
    await expectAccessible(page, 'sign-up');
    await screenshot(page, 'sign-up', shots);
    await signUp(page, service.baseUrl, email, PASSWORD, 'Newcomer');
    await expectAccessible(page, 'MFA start');
    await page.getByRole('button', { name: 'Start MFA setup' }).click();
    const qr = page.getByRole('img', { name: /QR code/ });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    await expectAccessible(page, 'MFA enrolment');
    await screenshot(page, 'mfa', shots);
    const secret = await shownOnce(page, 'totp-secret');
    await page.getByLabel('First code from the app').fill(await code(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    const codes = (await shownOnce(page, 'recovery-codes')).split('\n');
    expect(codes).toHaveLength(10);
    await expectAccessible(page, 'recovery codes');
  });

  it('mints an API key shown once, which works against /v1', async () => {
    await page.goto(`${service.baseUrl}/#/keys`);
    // The header holds on one line at 1,280 px: the brand, every link and "Log out" share a row.
    const [brand, logOut] = await Promise.all([
      page.locator('header .brand').boundingBox(),
      page.getByRole('button', { name: 'Log out' }).boundingBox(),
    ]);
    expect(Math.abs(brand!.y + brand!.height / 2 - (logOut!.y + logOut!.height / 2))).toBeLessThan(4);
    expect((await page.locator('header').boundingBox())!.height).toBeLessThan(60);
    // Why "Mint key" is disabled, and what a scope allows, are said before anything is tried.
    expect(await page.getByRole('button', { name: 'Mint key' }).isDisabled()).toBe(true);
    expect(await page.getByTestId('mint-why').textContent()).toMatch(/Tick at least one scope/);
    expect(await page.getByText(/webhook endpoints, their secrets and delivery logs/).count()).toBe(1);
    await page.getByLabel('Name').fill('ci');
    await page.getByLabel('service:workspace:admin').check();
    await page.getByRole('button', { name: 'Mint key' }).click();
    const key = await shownOnce(page, 'api-key');
    expect(key).toMatch(/^svc_/);
    await page.getByRole('cell', { name: 'ci', exact: true }).waitFor();
    await expectAccessible(page, 'API keys');
    await screenshot(page, 'keys', shots);
    const answer = await fetch(`${service.baseUrl}/v1/workspace/webhooks`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(answer.status).toBe(200);
  });

  it('creates an endpoint at a verifying receiver and sees a test event delivered in the live log', async () => {
    await page.goto(`${service.baseUrl}/#/webhooks`);
    expect(await page.getByLabel('Deliver webhooks').isChecked()).toBe(true);
    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    receiver.trust('first', await shownOnce(page, 'signing-secret'));
    // Which endpoint the secret is for is said inside its box, not in a line that looks like the next part.
    expect(
      await page.getByRole('region', { name: 'Signing secret' }).getByTestId('secret-note').textContent(),
    ).toBe(`For the endpoint ${receiver.url}.`);
    await expectAccessible(page, 'webhook endpoints');
    await screenshot(page, 'webhooks', shots);

    await page.getByRole('link', { name: 'Delivery log' }).click();
    await page.getByText('No delivery yet.').waitFor();
    await page.getByLabel('Event type', { exact: true }).selectOption('message.received');
    await page.getByRole('button', { name: 'Send test event' }).click();
    // The log is live: the row appears without a reload.
    const row = logRows().first();
    await row.and(page.locator('[data-status="delivered"]')).waitFor({ timeout: 15_000 });
    const eventId = await row.getAttribute('data-event-id');
    expect(receiver.arrivals.map((a) => a.eventId)).toContain(eventId);
    await expect.poll(() => row.textContent()).toContain('message.received');
    expect(await row.textContent()).toContain('200');
    // The page opens with the endpoint itself, and its chart counts the attempt.
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(receiver.url);
    expect(await page.getByTestId('endpoint-summary').textContent()).toMatch(/active.*every event/s);
    await expect.poll(() => page.getByTestId('activity-summary').textContent()).toMatch(/1 delivered/);
    // Opened, the attempt shows what was sent (body, headers, no signature value) beside the answer.
    await row.getByRole('button', { name: /^Show/ }).click();
    const detail = row.getByTestId('attempt-detail');
    await detail.getByTestId('sent-body').waitFor();
    expect(JSON.parse((await detail.getByTestId('sent-body').textContent())!)).toMatchObject({
      id: eventId,
      type: 'message.received',
    });
    const headers = (await detail.getByTestId('sent-headers').textContent())!;
    expect(headers).toContain(`x-service-event-id: ${eventId}`);
    expect(headers).toMatch(/x-service-signature: t=<unix seconds>,v1=<elided>/);
    expect(headers).not.toMatch(/v1=[0-9a-f]{8}/);
    expect(await detail.getByTestId('answer-excerpt').textContent()).toBe(`{"received":"${eventId}"}`);
    await expectAccessible(page, 'delivery log with an attempt open');
    await screenshot(page, 'delivery-log', shots);
  });

  it('rotates the secret from the endpoint’s page: the receiver verifies the next delivery with either', async () => {
    await page.goto(`${service.baseUrl}/#/webhooks`);
    await page.getByRole('link', { name: 'Delivery log' }).click();
    await logRows().first().waitFor();
    // Rotate asks first in the portal's own dialog, and says what the overlap does; cancelled, nothing changes.
    const actions = page.getByTestId('endpoint-actions');
    await actions.getByRole('button', { name: /^Rotate secret of/ }).click();
    const asked = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    expect(await asked.textContent()).toMatch(
      /For the next 24 hours every delivery is signed with both the new and the current secret/,
    );
    await expectAccessible(page, 'rotation dialog');
    await asked.getByRole('button', { name: 'Cancel' }).click();
    await asked.waitFor({ state: 'detached' });
    expect(await page.getByTestId('signing-secret').count()).toBe(0);
    await actions.getByRole('button', { name: /^Rotate secret of/ }).click();
    await asked.getByRole('button', { name: 'Rotate secret' }).click();
    receiver.trust('second', await shownOnce(page, 'signing-secret'));
    expect(
      await page.getByRole('region', { name: 'New signing secret' }).getByTestId('secret-note').textContent(),
    ).toMatch(/previous secret keeps verifying until/);
    await expect
      .poll(() => page.getByTestId('endpoint-summary').textContent())
      .toMatch(/rotating: the new and the previous secret both sign until/);

    const before = receiver.arrivals.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    const arrival = await eventually('the rotated delivery', () => receiver.arrivals[before]);
    expect(arrival.verifiedBy).toEqual(['first', 'second']);
    await eventually('two rows in the live log', async () => (await logRows().count()) === 2);

    // Filters are applied by the service: by event id, by status, and cleared.
    const firstId = await logRows().last().getAttribute('data-event-id');
    await page.getByLabel('Find by event id').fill(firstId!);
    await page.getByRole('button', { name: 'Find' }).click();
    await eventually('the one attempt of that event', async () => (await logRows().count()) === 1);
    expect(await logRows().first().getAttribute('data-event-id')).toBe(firstId);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Filter by status').selectOption('failed');
    await page.getByText('No attempt matches these filters.').waitFor();
    await expectAccessible(page, 'delivery log filtered');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await eventually('the whole log again', async () => (await logRows().count()) === 2);
  });

  it('pauses the endpoint from its page: a test event then reaches nobody and the log stays as it was', async () => {
    // A fresh page: the rotated secret shown once above is gone, as after any navigation.
    await page.reload();
    await page
      .getByTestId('endpoint-actions')
      .getByRole('button', { name: /^Pause / })
      .click();
    await eventually('the log', async () => (await logRows().count()) === 2);
    // The page says the endpoint is paused, what a test event will (not) do, and resumes from here.
    await page.getByTestId('paused-notice').waitFor();
    expect(await page.getByTestId('paused-notice').textContent()).toMatch(
      /This endpoint is paused\..*not kept for later/,
    );
    await page
      .getByTestId('endpoint-actions')
      .getByRole('button', { name: /^Resume / })
      .waitFor();
    expect(await page.getByTestId('test-outcome').textContent()).toMatch(
      /not sent to it, now or after it is resumed/,
    );
    await expectAccessible(page, 'paused endpoint’s log');
    await screenshot(page, 'delivery-log-paused', shots);
    const before = receiver.arrivals.length;
    const requestsBefore = receiver.refused;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/^Sent message\.received.*This endpoint is paused/).waitFor();
    // Longer than a worker poll (200 ms) plus a log poll (1.5 s) plus a delivery.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(receiver.arrivals.length).toBe(before);
    expect(receiver.refused).toBe(requestsBefore);
    expect(await logRows().count()).toBe(2);
  });

  it('logs out, then by keyboard alone logs in, is refused a wrong step-up code in words, and passes with the right one', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await expectAccessible(page, 'log-in');
    // Keyboard only from here: Tab to the first field, type, Tab, type, Enter.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();

    await page.getByLabel('Receiver URL').focus();
    await page.keyboard.type(`${receiver.url}?second`);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.waitFor();
    // The modal dialog takes the focus to its code field.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('step-up-code');
    await expectAccessible(page, 'step-up dialog');
    // The sandbox's `totp` command prints the seeded owner's code only: a signed-up member is not told of it.
    expect(await dialog.getByTestId('sandbox-totp').count()).toBe(0);
    await screenshot(page, 'step-up', shots);
    await page.keyboard.type('000000');
    await page.keyboard.press('Enter');
    const refusal = dialog.getByRole('alert');
    await expect.poll(() => refusal.textContent()).toMatch(/did not verify|already used/);
    expect(await refusal.textContent()).toMatch(/Request id: \S+/);
    expect(await page.getByTestId('signing-secret').count()).toBe(0);

    await dialog.getByLabel('Code from your authenticator app').focus();
    await page.keyboard.type(await code(''));
    await page.keyboard.press('Enter');
    await shownOnce(page, 'signing-secret');
    await expect.poll(() => page.getByRole('link', { name: 'Delivery log' }).count()).toBe(2);
  });

  it('turns the workspace’s delivery switch off and on again from the keyboard', async () => {
    const toggle = page.getByLabel('Deliver webhooks');
    await toggle.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => toggle.isChecked()).toBe(false);
    await page.reload();
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    expect(await page.getByLabel('Deliver webhooks').isChecked()).toBe(false);
    await page.getByLabel('Deliver webhooks').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByLabel('Deliver webhooks').isChecked()).toBe(true);
  });

  it('deletes an endpoint after confirming: its log page says it was removed and keeps the log', async () => {
    const link = page.getByRole('link', { name: 'Delivery log' }).first();
    const logPath = await link.getAttribute('href');
    await page
      .getByRole('button', { name: /^Delete / })
      .first()
      .click();
    // The portal's dialog, not the browser's: what is lost, what stays, and Cancel has the focus.
    const asked = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    expect(await asked.textContent()).toMatch(/stops receiving events at once.*delivery log stays readable/s);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await asked.getByRole('button', { name: 'Delete endpoint' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Delivery log' }).count()).toBe(1);
    await page.goto(`${service.baseUrl}/${logPath}`);
    await page.getByRole('heading', { name: 'Removed endpoint' }).waitFor();
    await eventually('the kept log', async () => (await logRows().count()) === 2);
    expect(await page.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
    await expectAccessible(page, 'removed endpoint’s log');
    expect(watch.errors).toEqual([]);
  });
});
