import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_EMAIL, SANDBOX_WORKSPACE_ID, seedSandbox } from '../../src/features/sandbox/seed.js';
import type { OpenedStore } from '../../src/store/open.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { openMemoryStore } from '../support/pglite-snapshot.js';
import { expectAccessible, launchChromium, watchPage } from './support/browser.js';
import { type PortalInstance, startPortalInstance } from './support/instance.js';
import { screenshot } from './support/pages.js';
import { startReceiver, type TestReceiver } from './support/receiver.js';

/**
 * An event's own page, reached from a row of an endpoint's delivery log: one event sent to two endpoints
 * (one answers 200, the other 503) shows both attempts, each linking to its endpoint's page, and the body
 * pretty-printed; its URL opens the same page in a fresh tab; an unknown event is "not found" in words.
 * The route's answers on both backends are test/http/event-route.test.ts's; these are the portal's: PGlite.
 */
describe('an event’s page in the portal', { timeout: 60_000 }, () => {
  let store: OpenedStore;
  let service: PortalInstance;
  let browser: Browser;
  let receiver: TestReceiver;
  let failing: Server;
  let page: Page;
  let watch: { errors: string[] };
  let good: { id: string; secret: string };
  let bad: { id: string; secret: string };
  let failingUrl: string;

  beforeAll(async () => {
    [store, browser, receiver] = await Promise.all([openMemoryStore(), launchChromium(), startReceiver()]);
    failing = createServer((_request, response) => response.writeHead(503).end('down for a moment'));
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/hooks`;
    service = await startPortalInstance(store);
    const seeded = await seedSandbox(service.ctx);
    if (!seeded.seeded) throw new Error('the sandbox was seeded already');
    const { ctx } = service;
    good = await seedActiveEndpoint(ctx.db, ctx.secretBox, SANDBOX_WORKSPACE_ID, receiver.url);
    receiver.trust('good', good.secret);
    bad = await seedActiveEndpoint(ctx.db, ctx.secretBox, SANDBOX_WORKSPACE_ID, failingUrl);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
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
    await new Promise((resolve) => failing?.close(resolve));
    await store?.close();
  });

  const attempts = () => page.locator('[data-testid="event-attempts"] tbody tr');

  it('opens from a delivery log row and shows both endpoints’ attempts and the body', async () => {
    const eventId = await page.evaluate(async () => {
      const answer = await fetch('/sandbox/events', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'message.received' }),
      });
      return ((await answer.json()) as { event: { id: string } }).event.id;
    });
    await page.goto(`${service.baseUrl}/#/webhooks/${bad.id}`);
    const row = page.locator(`[data-testid="delivery-log"] tbody.attempt[data-event-id="${eventId}"]`);
    await row.and(page.locator('[data-status="failed"]')).waitFor({ timeout: 15_000 });
    await row.getByRole('link', { name: eventId }).click();
    await page.getByRole('heading', { name: `Event ${eventId}` }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/events/${eventId}`);

    // Both attempts, in the order the endpoints were made; wait for the good one's answer to be logged.
    await page.locator('[data-testid="event-attempts"] tr[data-status="delivered"]').waitFor();
    await expect.poll(() => attempts().count()).toBe(2);
    const cells = async (endpointId: string) =>
      page.locator(`[data-testid="event-attempts"] tr[data-endpoint="${endpointId}"] td`).allTextContents();
    const [goodCells, badCells] = [await cells(good.id), await cells(bad.id)];
    expect(goodCells.slice(0, 3)).toEqual([receiver.url, 'delivered', '200']);
    expect(badCells.slice(0, 3)).toEqual([failingUrl, 'failed', '503']);
    for (const shown of [goodCells, badCells]) {
      expect(shown[3]).toMatch(/^\d+ ms$/);
      expect(shown[4]).not.toBe('—');
    }
    expect(receiver.arrivals.map((a) => a.eventId)).toEqual([eventId]);

    const [stored] = await store.db.query<{ body: string }>('SELECT body FROM events WHERE id = $1', [
      eventId,
    ]);
    const body = await page.getByTestId('event-body').textContent();
    expect(body).toBe(JSON.stringify(JSON.parse(stored!.body), null, 2));
    expect(body).toContain('\n  "type": "message.received"');
    await expectAccessible(page, 'event page');
    await screenshot(page, 'event-page', true);

    // The endpoint's link leads to its own page.
    await page.getByRole('link', { name: failingUrl }).click();
    await page.getByRole('heading', { name: `Delivery log of ${failingUrl}` }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/webhooks/${bad.id}`);

    // Found by id in the log's filter, the deliveries page links to the event too.
    await page.getByLabel('Find by event id').fill(eventId);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByTestId('event-link').getByRole('link').click();
    await page.getByRole('heading', { name: `Event ${eventId}` }).waitFor();

    // The URL is one to share: a fresh tab of the same session opens the same page.
    const shared = await page.context().newPage();
    await shared.goto(`${service.baseUrl}/#/events/${eventId}`);
    await shared.locator('[data-testid="event-attempts"] tbody tr').nth(1).waitFor();
    expect(await shared.getByTestId('event-body').textContent()).toBe(body);
    await shared.close();
    expect(watch.errors).toEqual([]);
  });

  it('says an unknown event is not found, and why it may be gone', async () => {
    await page.goto(`${service.baseUrl}/#/events/evt_${'0'.repeat(24)}`);
    const problem = page.getByRole('alert');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/^Not found\. No such event in this workspace.*retention/);
    expect(await page.getByTestId('event-attempts').count()).toBe(0);
    // A shared link cut inside an escape still renders the page, whose id the route refuses.
    await page.goto(`${service.baseUrl}/#/events/evt_%E0%A4`);
    await page.getByRole('heading', { name: 'Event evt_%E0%A4' }).waitFor();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toMatch(/^The service refused the input\./);
    await page.goto(`${service.baseUrl}/#/events/not-an-event`);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toMatch(/^The service refused the input\./);
    await expectAccessible(page, 'unknown event');
    expect(watch.errors).toEqual([]);
  });
});
