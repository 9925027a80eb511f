import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_EMAIL, seedSandbox } from '../../src/features/sandbox/seed.js';
import type { OpenedStore } from '../../src/store/open.js';
import { openMemoryStore } from '../support/pglite-snapshot.js';
import { expectAccessible, launchChromium, watchPage } from './support/browser.js';
import { type PortalInstance, startPortalInstance } from './support/instance.js';
import { screenshot, shownOnce } from './support/pages.js';
import { startReceiver, type TestReceiver } from './support/receiver.js';
import { authenticator } from './support/totp.js';

/**
 * One endpoint's page as the sandbox's seeded owner: the step-up dialog names the sandbox's `totp`
 * command, the list's small chart says when the last hour is empty, a test event goes to that endpoint
 * alone, and the endpoint is deleted from its own page through the portal's dialog. The journey rotates and pauses from the page on both backends;
 * these are the portal's words: PGlite alone.
 */
describe('an endpoint’s own page, as the sandbox owner', { timeout: 60_000 }, () => {
  let store: OpenedStore;
  let service: PortalInstance;
  let browser: Browser;
  let receiver: TestReceiver;
  let page: Page;
  let watch: { errors: string[] };
  let totp: ReturnType<typeof authenticator>;

  beforeAll(async () => {
    [store, browser, receiver] = await Promise.all([openMemoryStore(), launchChromium(), startReceiver()]);
    service = await startPortalInstance(store);
    const seeded = await seedSandbox(service.ctx);
    if (!seeded.seeded) throw new Error('the sandbox was seeded already');
    totp = authenticator(seeded.totpSecret);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watch = watchPage(page);
    await page.goto(`${service.baseUrl}/#/login`);
    await page.getByLabel('Email').fill(SANDBOX_EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(seeded.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await receiver?.close();
    await store?.close();
  });

  it('tells the seeded owner how to get a code in the step-up dialog', async () => {
    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.waitFor();
    expect(await dialog.getByTestId('sandbox-totp').textContent()).toMatch(
      /seeded owner: on the machine that runs the service, npm run sandbox -- totp in the repository prints the current code/,
    );
    // A recovery code is not what the command prints: the line goes while one is asked for.
    await dialog.getByLabel('Use a recovery code instead').check();
    expect(await dialog.getByTestId('sandbox-totp').count()).toBe(0);
    await dialog.getByLabel('Use a recovery code instead').uncheck();
    await expectAccessible(page, 'step-up dialog of the sandbox owner');
    await screenshot(page, 'endpoint-step-up-sandbox', true);
    await dialog.getByLabel('Code from your authenticator app').fill(await totp.next());
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    receiver.trust('sandbox', await shownOnce(page, 'signing-secret'));
  });

  it('says the list’s last hour is empty instead of drawing an empty box', async () => {
    const row = page.locator('tr[data-endpoint]');
    await row.getByTestId('chart-empty').waitFor();
    expect(await row.getByTestId('chart-empty').textContent()).toBe('No attempts');
    expect(await row.locator('svg').count()).toBe(0);
    await screenshot(page, 'endpoint-list', true);
  });

  it('sends the test event to this endpoint only, not to the workspace’s other one', async () => {
    // A second endpoint at the same receiver, verified by its own secret: a delivery there would show.
    await page.getByLabel('Receiver URL').fill(`${receiver.url}?other`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Delivery log' }).count()).toBe(2);
    receiver.trust('other', await shownOnce(page, 'signing-secret'));
    const otherLog = await page.getByRole('link', { name: 'Delivery log' }).last().getAttribute('href');

    await page.getByRole('link', { name: 'Delivery log' }).first().click();
    await expect
      .poll(() => page.getByTestId('test-outcome').textContent())
      .toMatch(/appears in the log below/);
    await page.getByLabel('Event type', { exact: true }).selectOption('message.received');
    await page.getByRole('button', { name: 'Send test event' }).click();
    const row = page.locator('[data-testid="delivery-log"] tbody.attempt[data-status="delivered"]');
    await row.waitFor({ timeout: 15_000 });
    const eventId = await row.getAttribute('data-event-id');
    // Longer than a worker poll (200 ms) and a delivery: the other endpoint's copy would have come by now.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(receiver.arrivals.filter((a) => a.eventId === eventId).map((a) => a.verifiedBy)).toEqual([
      ['sandbox'],
    ]);
    await expectAccessible(page, 'endpoint page with its actions');
    await screenshot(page, 'endpoint-page', true);
    await page.goto(`${service.baseUrl}/${otherLog}`);
    await page.getByText('No delivery yet.').waitFor();
    await page.goBack();
    await row.waitFor();
  });

  it('deletes the endpoint from its own page after the portal’s dialog, and keeps its log', async () => {
    const actions = page.getByTestId('endpoint-actions');
    await actions.getByRole('button', { name: /^Pause / }).waitFor();
    await actions.getByRole('button', { name: /^Rotate secret of/ }).waitFor();
    await actions.getByRole('button', { name: /^Delete / }).click();
    const asked = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    expect(await asked.textContent()).toMatch(
      new RegExp(`${receiver.url} stops receiving events at once.*cannot be undone.*stays readable`, 's'),
    );
    // Cancel has the focus, and Escape closes without deleting.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await expectAccessible(page, 'delete dialog');
    await screenshot(page, 'endpoint-delete-dialog', true);
    await page.keyboard.press('Escape');
    await asked.waitFor({ state: 'detached' });
    expect(await page.getByTestId('endpoint-summary').count()).toBe(1);

    await actions.getByRole('button', { name: /^Delete / }).click();
    await asked.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('heading', { name: 'Removed endpoint' }).waitFor();
    expect(await page.locator('[data-testid="delivery-log"] tbody.attempt').count()).toBe(1);
    await screenshot(page, 'endpoint-removed', true);
    await page.getByRole('link', { name: '← Webhook endpoints' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Delivery log' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: `${receiver.url}?other` }).count()).toBe(1);
    expect(watch.errors).toEqual([]);
  });
});
