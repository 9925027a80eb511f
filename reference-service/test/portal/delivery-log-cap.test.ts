import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedStore } from '../../src/store/open.js';
import { openMemoryStore } from '../support/pglite-snapshot.js';
import { launchChromium, watchPage } from './support/browser.js';
import { type PortalInstance, startPortalInstance } from './support/instance.js';
import { enrolMfa, eventually, shownOnce, signUp } from './support/pages.js';
import { authenticator } from './support/totp.js';

const PASSWORD = 'a long pass phrase for the portal';
/** LOG_LIMIT of portal/src/api/live-deliveries.ts (that module needs a browser to import). */
const LOG_LIMIT = 50;

/**
 * The log page asks for the newest attempts only (listWebhookDeliveries has a limit and no paging). Once
 * it holds that many, it says so and how to reach older ones; below that, it says nothing. Words of the
 * portal, not of the store: PGlite alone.
 */
describe('the delivery log at its limit, in the portal', { timeout: 90_000 }, () => {
  let store: OpenedStore;
  let service: PortalInstance;
  let browser: Browser;
  let page: Page;
  let watch: { errors: string[] };
  let receiver: Server;
  let url: string;

  beforeAll(async () => {
    [store, browser] = await Promise.all([openMemoryStore(), launchChromium()]);
    service = await startPortalInstance(store);
    // Answers 200 to anything: the log's length is under test, not verification.
    receiver = createServer((_request, response) => response.writeHead(200).end('ok'));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watch = watchPage(page);
    await signUp(page, service.baseUrl, 'busy@portal.example', PASSWORD, 'Busy');
    await enrolMfa(page, (secret) => authenticator(secret).next());
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await store?.close();
  });

  const rows = () => page.locator('[data-testid="delivery-log"] tbody.attempt').count();
  const sendTestEvents = (count: number) =>
    page.evaluate(async (n) => {
      for (let i = 0; i < n; i++) {
        const answer = await fetch('/sandbox/events', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'message.received' }),
        });
        if (!answer.ok) throw new Error(`test event ${i}: ${answer.status}`);
      }
    }, count);

  it('says only the newest attempts are listed once the log is full, and not before', async () => {
    await page.goto(`${service.baseUrl}/#/webhooks`);
    await page.getByLabel('Receiver URL').fill(url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await shownOnce(page, 'signing-secret');
    await page.getByRole('link', { name: 'Delivery log' }).click();
    await page.getByText('No delivery yet.').waitFor();

    await sendTestEvents(LOG_LIMIT - 1);
    await eventually('one attempt short of the limit', async () => (await rows()) === LOG_LIMIT - 1, 30_000);
    expect(await page.getByTestId('log-cap').count()).toBe(0);

    await sendTestEvents(2);
    await page.getByTestId('log-cap').waitFor({ timeout: 15_000 });
    expect(await rows()).toBe(LOG_LIMIT);
    expect(await page.getByTestId('log-cap').textContent()).toMatch(
      new RegExp(
        `^Only the newest ${LOG_LIMIT} attempts are listed\\. For an older one, find its event by id`,
      ),
    );
    await page.getByLabel('Filter by status').selectOption('delivered');
    await expect
      .poll(() => page.getByTestId('log-cap').textContent())
      .toMatch(/newest 50 attempts that match these filters/);
    expect(watch.errors).toEqual([]);
  });
});
