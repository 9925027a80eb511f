import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchForProblems } from './support/browser';
import { distDir } from './support/paths';
import { builtPages, toUrlPath } from './support/site-files';
import { fileFor, type StaticSite, serveStatic } from './support/static-server';

interface LinkRef {
  readonly from: string;
  readonly href: string;
  readonly path: string;
  readonly hash: string;
}

interface Crawl {
  /** Problems seen while each page loaded, by page. */
  readonly problems: Map<string, string[]>;
  /** Element ids of each loaded page, to check `#anchor` links against. */
  readonly ids: Map<string, Set<string>>;
  readonly links: LinkRef[];
  /** Pages reached by following links from the home page. */
  readonly reached: Set<string>;
  /** Chunks the browser started to prefetch and then dropped; each must still exist. */
  readonly abandonedPrefetches: Set<string>;
}

let site: StaticSite;
let browser: Browser;
let crawl: Crawl;

/**
 * Pages loaded at once: a load ends with the watch's wait for 300 ms without a request, time in which the
 * other tab renders (one tab took over 300 s for the 320 pages on the CI machine).
 */
const TABS = 2;

type Tab = { page: Page; watch: ReturnType<typeof watchForProblems> };

/**
 * Loads the home page, follows every internal link to an HTML page (level by level, each level's pages
 * shared among the tabs), then loads every built page the links did not reach, so an orphan page is still
 * checked (and reported as one).
 */
async function crawlSite(): Promise<Crawl> {
  const tabs: Tab[] = await Promise.all(
    Array.from({ length: TABS }, async () => {
      const page = await browser.newPage();
      return { page, watch: watchForProblems(page) };
    }),
  );
  const problems = new Map<string, string[]>();
  const ids = new Map<string, Set<string>>();
  const links: LinkRef[] = [];
  const reached = new Set<string>();
  const abandonedPrefetches = new Set<string>();

  const visit = async ({ page, watch }: Tab, pathname: string): Promise<void> => {
    watch.reset();
    // The watch's settle waits until no request is in flight and none started for 300 ms: Playwright's
    // `networkidle` on top of it only added half a second per page.
    await page.goto(`${site.origin}${pathname}`, { waitUntil: 'load' });
    await watch.settle();
    problems.set(pathname, [...watch.problems]);
    for (const url of watch.abandonedPrefetches) abandonedPrefetches.add(new URL(url).pathname);
    ids.set(
      pathname,
      new Set(await page.$$eval('[id]', (elements) => elements.map((element) => element.id))),
    );
    const hrefs = await page.$$eval('a[href]', (anchors) =>
      anchors.map((anchor) => ({
        raw: anchor.getAttribute('href') ?? '',
        href: (anchor as HTMLAnchorElement).href,
      })),
    );
    for (const { raw, href } of hrefs) {
      const url = new URL(href);
      if (url.origin !== site.origin) continue;
      links.push({
        from: pathname,
        href: raw,
        path: toUrlPath(url.pathname),
        hash: decodeURIComponent(url.hash.slice(1)),
      });
    }
  };

  /** Visits every path, each tab taking the next one as it comes free. */
  const visitAll = async (paths: readonly string[]): Promise<void> => {
    let next = 0;
    await Promise.all(
      tabs.map(async (tab) => {
        while (next < paths.length) await visit(tab, paths[next++]!);
      }),
    );
  };

  let level = ['/'];
  reached.add('/');
  while (level.length > 0) {
    const firstNew = links.length;
    await visitAll(level);
    const following: string[] = [];
    for (const link of links.slice(firstNew)) {
      const isPage = link.path.endsWith('/') || link.path.endsWith('.html');
      if (isPage && !reached.has(link.path) && fileFor(distDir, link.path)) {
        reached.add(link.path);
        following.push(link.path);
      }
    }
    level = following;
  }
  await visitAll(builtPages(distDir).filter((pathname) => !problems.has(pathname)));
  for (const { page } of tabs) await page.close();
  return { problems, ids, links, reached, abandonedPrefetches };
}

beforeAll(async () => {
  site = await serveStatic(distDir);
  browser = await launchChromium();
  crawl = await crawlSite();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe('every page of the built site', () => {
  it('covers all built pages, guides and both references', () => {
    const pages = [...crawl.problems.keys()];
    expect(pages).toEqual(expect.arrayContaining(builtPages(distDir)));
    for (const page of [
      '/',
      '/guide/quickstart.html',
      '/api/http/',
      '/api/',
      '/api/webhooks/',
      '/api/contract/',
      '/api/client/',
      '/api/mock/',
    ]) {
      expect(pages, 'pages loaded').toContain(page);
    }
  });

  it('loads without console errors, uncaught exceptions or failed requests', () => {
    const broken = Object.fromEntries([...crawl.problems].filter(([, problems]) => problems.length > 0));
    expect(broken).toEqual({});
  });

  it('prefetches only files that exist', () => {
    expect([...crawl.abandonedPrefetches].filter((pathname) => !fileFor(distDir, pathname))).toEqual([]);
  });

  it('has no internal link to a missing file or anchor', () => {
    const broken = crawl.links.filter((link) => {
      if (!fileFor(distDir, link.path)) return true;
      if (!link.hash) return false;
      const targetIds = crawl.ids.get(link.path);
      // Links to non-page files (openapi.json, the favicon) carry no anchors worth checking.
      return targetIds !== undefined && !targetIds.has(link.hash);
    });
    expect(broken.map((link) => `${link.from} -> ${link.href}`)).toEqual([]);
  });

  it('reaches every page from the home page by following links', () => {
    const orphans = builtPages(distDir).filter(
      (pathname) => pathname !== '/404.html' && !crawl.reached.has(pathname),
    );
    expect(orphans).toEqual([]);
  });
});
