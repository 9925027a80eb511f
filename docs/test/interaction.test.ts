import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium, type ProblemWatch, watchForProblems } from './support/browser';
import { distDir, resultsDir } from './support/paths';
import { fileFor, type StaticSite, serveStatic } from './support/static-server';

let site: StaticSite;
let browser: Browser;
let page: Page;
let watch: ProblemWatch;

beforeAll(async () => {
  site = await serveStatic(distDir);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  watch = watchForProblems(page);
  return async () => {
    await watch.settle();
    await page.close();
    expect(watch.problems).toEqual([]);
    expect(watch.abandoned.filter((url) => !fileFor(distDir, new URL(url).pathname))).toEqual([]);
  };
});

/** Marks the loaded document, so a later check can tell client-side routing from a full page load. */
async function markDocument(): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
  });
}

async function isSameDocument(): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument === true);
}

describe('navigation', () => {
  it('opens every guide from the sidebar, routing in the page', async () => {
    await page.goto(`${site.origin}/guide/quickstart.html`, { waitUntil: 'networkidle' });
    const links = await page.$$eval('.VPSidebar a.VPLink[href^="/guide/"]', (anchors) =>
      anchors.map((anchor) => ({
        href: anchor.getAttribute('href') ?? '',
        text: anchor.textContent?.trim() ?? '',
      })),
    );
    expect(links.map((link) => link.href)).toEqual(
      expect.arrayContaining([
        '/guide/quickstart.html',
        '/guide/delivery-contract.html',
        '/guide/secret-rotation.html',
        '/guide/testing.html',
        '/guide/api-client.html',
        '/guide/reference-service.html',
        '/guide/events.html',
        '/guide/error-codes.html',
        '/guide/open-choices.html',
      ]),
    );
    await markDocument();
    const heading = () => page.locator('.vp-doc h1').first().textContent();
    const titles = new Set<string>();
    let previous = (await heading())?.trim() ?? '';
    for (const link of links) {
      await page.locator(`.VPSidebar a.VPLink[href="${link.href}"]`).click();
      await page.waitForURL(`${site.origin}${link.href}`);
      if (link.href !== '/guide/quickstart.html' || titles.size > 0) {
        await expect
          .poll(async () => (await heading())?.trim(), { message: `heading of ${link.href}` })
          .not.toBe(previous);
      }
      previous = (await heading())?.trim() ?? '';
      expect(previous, `heading of ${link.href}`).not.toBe('');
      titles.add(previous);
      await expect
        .poll(() => page.locator('.VPSidebar .is-active a.VPLink').first().getAttribute('href'))
        .toBe(link.href);
    }
    // Each click showed a different page, and none of them reloaded the document.
    expect(titles.size).toBe(links.length);
    expect(await isSameDocument()).toBe(true);
  });

  it('reaches both references from the top navigation', async () => {
    await page.goto(`${site.origin}/`, { waitUntil: 'networkidle' });
    await page.locator('.VPNavBar a.VPLink', { hasText: 'HTTP API' }).first().click();
    await page.waitForURL(`${site.origin}/api/http/`);
    await expect.poll(() => page.locator('.vp-doc h1').first().textContent()).toContain('HTTP API');
    await page.locator('.VPNavBar a.VPLink', { hasText: 'TypeScript API' }).first().click();
    await page.waitForURL(`${site.origin}/api/`);
    await expect.poll(() => page.locator('.vp-doc h1').first().textContent()).toContain('TypeScript API');
  });
});

describe('search', () => {
  it('finds a guide by a word in its text and opens it', async () => {
    await page.goto(`${site.origin}/`, { waitUntil: 'networkidle' });
    await page.locator('#local-search button.DocSearch-Button').click();
    const input = page.locator('#localsearch-input');
    await input.waitFor();
    await input.fill('rotation');
    const target = page.locator('.VPLocalSearchBox a.result[href^="/guide/secret-rotation.html"]').first();
    await target.waitFor();
    await target.click();
    await page.waitForURL(/\/guide\/secret-rotation\.html/);
    await expect.poll(() => page.locator('.vp-doc h1').first().textContent()).toMatch(/rotat/i);
  });

  it('finds an exported symbol of the TypeScript reference', async () => {
    await page.goto(`${site.origin}/`, { waitUntil: 'networkidle' });
    await page.locator('#local-search button.DocSearch-Button').click();
    await page.locator('#localsearch-input').fill('createTestHeaders');
    const result = page.locator('.VPLocalSearchBox a.result[href^="/api/webhooks"]').first();
    await result.waitFor();
    await result.click();
    await page.waitForURL(/\/api\/webhooks/);
    await expect.poll(() => page.locator('.vp-doc').textContent()).toContain('createTestHeaders');
  });
});

describe('search ranking', () => {
  /** The links of the results for a query, in the order shown, once the list has settled. */
  async function results(query: string): Promise<string[]> {
    await page.goto(`${site.origin}/`, { waitUntil: 'networkidle' });
    await page.locator('#local-search button.DocSearch-Button').click();
    await page.locator('#localsearch-input').fill(query);
    await page.locator('.VPLocalSearchBox a.result').first().waitFor();
    let previous = '';
    // The list is re-rendered as the query is debounced; read it once it stops changing.
    for (;;) {
      const hrefs = await page.$$eval('.VPLocalSearchBox a.result', (links) =>
        links.map((link) => link.getAttribute('href') ?? ''),
      );
      if (hrefs.join() === previous) return hrefs;
      previous = hrefs.join();
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }

  it('puts the error-codes guide first for "429", above the generated reference', async () => {
    const hrefs = await results('429');
    expect(hrefs[0]).toMatch(/^\/guide\/error-codes\.html/);
  });

  it('finds the troubleshooting page for "troubleshoot"', async () => {
    const hrefs = await results('troubleshoot');
    expect(hrefs[0]).toMatch(/^\/guide\/troubleshooting\.html/);
  });

  it('says the index is loading instead of showing an empty panel, and fetches it on intent', async () => {
    await page.goto(`${site.origin}/guide/quickstart.html`, { waitUntil: 'networkidle' });
    // Nothing is fetched until the reader shows the intent to search.
    expect(await page.evaluate(() => document.documentElement.dataset.searchIndex)).toBe('loading');
    await page.locator('#local-search button.DocSearch-Button').click();
    await page.locator('#localsearch-input').waitFor();
    // Pointing at the search button started the fetch; once the index is in, the flag says so.
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.searchIndex)).toBe('ready');
    await page.locator('#localsearch-input').fill('secret');
    await page.locator('.VPLocalSearchBox a.result').first().waitFor();

    // What the reader sees while the flag says "loading": the empty list says so.
    const before = () =>
      page.$eval('.VPLocalSearchBox .results', (list) => getComputedStyle(list, '::before').content);
    await page.locator('#localsearch-input').fill('');
    await page.evaluate(() => {
      document.documentElement.dataset.searchIndex = 'loading';
    });
    await expect.poll(before).toContain('Loading the search index');
    await page.evaluate(() => {
      document.documentElement.dataset.searchIndex = 'ready';
    });
    await expect.poll(before).not.toContain('Loading');
  });
});

describe('screenshot', () => {
  it('writes a picture of the quickstart page', async () => {
    await page.goto(`${site.origin}/guide/quickstart.html`, { waitUntil: 'networkidle' });
    mkdirSync(resultsDir, { recursive: true });
    const file = path.join(resultsDir, 'quickstart.png');
    await page.screenshot({ path: file, fullPage: true });
    const png = readFileSync(file);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // A blank page compresses to a few hundred bytes; a page of text and code is tens of kilobytes.
    expect(png.length).toBeGreaterThan(20_000);
  });
});
