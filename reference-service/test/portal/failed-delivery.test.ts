import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedStore } from '../../src/store/open.js';
import { insertUnansweredFailure } from '../support/endpoints.js';
import { openMemoryStore } from '../support/pglite-snapshot.js';
import { expectAccessible, launchChromium, watchPage } from './support/browser.js';
import { type PortalInstance, startPortalInstance } from './support/instance.js';
import { enrolMfa, shownOnce, signUp } from './support/pages.js';
import { authenticator } from './support/totp.js';

const PASSWORD = 'a long pass phrase for the portal';

/** A loopback port nothing listens on any more: a receiver that is not running. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A failed row of the endpoint at `url` as the log wrote them before migration 0028: no reason kept. */
async function olderFailureWithoutReason(store: OpenedStore, url: string): Promise<string> {
  const [endpoint] = await store.db.query<{ id: string; workspace_id: string }>(
    'SELECT id, workspace_id FROM webhook_endpoints WHERE url = $1',
    [url],
  );
  return insertUnansweredFailure(
    store.db,
    { workspaceId: endpoint!.workspace_id, endpointId: endpoint!.id },
    Date.now() - 60_000,
  );
}

/**
 * A newcomer's first failure: the receiver is not running when the test event goes out. The row says
 * failed, the attempt says in words why there is no answer to show (the refused connection, rather than
 * "(none)" or a list of possible causes), and the endpoint's run of failures reads as English at one.
 * Words of the portal, not of the store: PGlite alone.
 */
describe('a delivery to a receiver that is not running, in the portal', { timeout: 60_000 }, () => {
  let store: OpenedStore;
  let service: PortalInstance;
  let browser: Browser;
  let page: Page;
  let watch: { errors: string[] };
  let url: string;

  beforeAll(async () => {
    [store, browser] = await Promise.all([openMemoryStore(), launchChromium()]);
    service = await startPortalInstance(store);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watch = watchPage(page);
    await signUp(page, service.baseUrl, 'failing@portal.example', PASSWORD, 'Failures');
    await enrolMfa(page, (secret) => authenticator(secret).next());
    url = `http://127.0.0.1:${await closedPort()}/hooks`;
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await store?.close();
  });

  it('shows the failed attempt with why it has no answer, and one failure as one', async () => {
    await page.goto(`${service.baseUrl}/#/webhooks`);
    await page.getByLabel('Receiver URL').fill(url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await shownOnce(page, 'signing-secret');
    await page.getByRole('link', { name: 'Delivery log' }).click();
    await page.getByText('No delivery yet.').waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const row = page.locator('[data-testid="delivery-log"] tbody.attempt').first();
    await row.and(page.locator('[data-status="failed"]')).waitFor({ timeout: 15_000 });
    await row.getByRole('button', { name: /^Show/ }).click();
    const detail = page.getByTestId('attempt-detail');
    await detail.getByTestId('sent-body').waitFor();
    // The service kept why: the page says it in words, not as a list of possible causes.
    const why = detail.getByTestId('no-answer');
    expect(await why.getAttribute('data-reason')).toBe('refused');
    expect(await why.textContent()).toMatch(/^The connection was refused: nothing was listening/);
    expect(await detail.getByTestId('answer-excerpt').count()).toBe(0);
    // The service's log has the same attempt, with this delivery's id and its error's own words.
    const deliveryId = (await detail.locator('dd code').last().textContent())!;
    expect(service.logs()).toMatch(
      new RegExp(`"delivery_id":"${deliveryId}".*ECONNREFUSED.*"code":"refused".*delivery not answered`),
    );
    await expectAccessible(page, 'a failed attempt opened');

    // A row logged before the service kept why (no code): the page lists the possible causes.
    const older = await olderFailureWithoutReason(store, url);
    await page.reload();
    const oldRow = page.locator(`[data-testid="delivery-log"] tbody[data-event-id="${older}"]`);
    await oldRow.getByRole('button', { name: /^Show/ }).click();
    const oldDetail = oldRow.getByTestId('attempt-detail');
    await oldDetail.getByText("The event's body is no longer kept.").waitFor();
    const generic = oldDetail.getByTestId('no-answer');
    expect(await generic.getAttribute('data-reason')).toBeNull();
    expect(await generic.textContent()).toMatch(
      /^No answer came back: the connection was refused or dropped.*longer than 10 seconds.*"delivery not answered"/,
    );

    await page.reload();
    await page.getByText('1 failed delivery in a row (20 pause it)').waitFor();
    await page.goto(`${service.baseUrl}/#/webhooks`);
    await page.getByRole('cell', { name: /^active \(1 failed delivery in a row\)$/ }).waitFor();
    expect(await page.getByText(/1 failed deliveries|1 failures/).count()).toBe(0);
    expect(watch.errors).toEqual([]);
  });
});
