import type { Browser } from 'playwright-core';
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
  /** Requests the browser started and then dropped (prefetches, the favicon); each must name a file. */
  readonly abandoned: Set<string>;
  /** Code blocks and tables wider than their column at 1280 px, by page. */
  readonly overflowing: string[];
}

let site: StaticSite;
let browser: Browser;
let crawl: Crawl;

/**
 * Loads the home page, follows every internal link to an HTML page (level by level), then loads every
 * built page the links did not reach, so an orphan page is still checked (and reported as one). One tab:
 * two tabs, or two browsers, were no faster on the two-core CI machine (the browser's work per page is
 * the limit, and the tabs took turns).
 */
async function crawlSite(): Promise<Crawl> {
  // The width a reader on a laptop has: every code line and table must fit the column there.
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const watch = watchForProblems(page);
  const problems = new Map<string, string[]>();
  const ids = new Map<string, Set<string>>();
  const links: LinkRef[] = [];
  const reached = new Set<string>();
  const abandoned = new Set<string>();
  const overflowing: string[] = [];

  const visit = async (pathname: string): Promise<void> => {
    watch.reset();
    // The watch's settle waits until no request is in flight and none started for a moment: Playwright's
    // `networkidle` on top of it only added half a second per page.
    await page.goto(`${site.origin}${pathname}`, { waitUntil: 'load' });
    await watch.settle();
    problems.set(pathname, [...watch.problems]);
    for (const url of watch.abandoned) abandoned.add(new URL(url).pathname);
    // One round trip to the page for all it is asked (each cost tens of milliseconds on 320 pages).
    const seen = await page.evaluate(async () => {
      await document.fonts.ready;
      const firstLine = (element: Element) => (element.textContent ?? '').split('\n')[0]?.slice(0, 60) ?? '';
      const overflows = (element: Element) => element.scrollWidth > element.clientWidth + 1;
      return {
        ids: [...document.querySelectorAll('[id]')].map((element) => element.id),
        hrefs: [...document.querySelectorAll('a[href]')].map((anchor) => ({
          raw: anchor.getAttribute('href') ?? '',
          href: (anchor as HTMLAnchorElement).href,
        })),
        wide: [
          ...[...document.querySelectorAll('.vp-doc div[class*="language-"] pre')]
            .filter(overflows)
            .map(firstLine),
          ...[...document.querySelectorAll('.vp-doc table')]
            .filter(overflows)
            .map((table) => `table: ${(table.querySelector('th')?.textContent ?? '').slice(0, 40)}`),
        ],
      };
    });
    ids.set(pathname, new Set(seen.ids));
    for (const line of seen.wide) overflowing.push(`${pathname}: ${line}`);
    for (const { raw, href } of seen.hrefs) {
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

  const visitAll = async (paths: readonly string[]): Promise<void> => {
    for (const pathname of paths) await visit(pathname);
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
  await page.close();
  return { problems, ids, links, reached, abandoned, overflowing };
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

  it('starts no request, even one it drops, for a file that does not exist', () => {
    expect([...crawl.abandoned].filter((pathname) => !fileFor(distDir, pathname))).toEqual([]);
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

  it('keeps every code line and table inside the column at 1280 px', () => {
    expect([...crawl.overflowing].sort()).toEqual([]);
  });

  it('reaches every page from the home page by following links', () => {
    const orphans = builtPages(distDir).filter(
      (pathname) => pathname !== '/404.html' && !crawl.reached.has(pathname),
    );
    expect(orphans).toEqual([]);
  });
});
