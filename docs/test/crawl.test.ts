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
  /** Chunks the browser started to prefetch and then dropped; each must still exist. */
  readonly abandonedPrefetches: Set<string>;
}

let site: StaticSite;
let browser: Browser;
let crawl: Crawl;

/**
 * Loads the home page, follows every internal link to an HTML page, then loads every built page the links
 * did not reach, so an orphan page is still checked (and reported as one).
 */
async function crawlSite(): Promise<Crawl> {
  const page = await browser.newPage();
  const problems = new Map<string, string[]>();
  const ids = new Map<string, Set<string>>();
  const links: LinkRef[] = [];
  const reached = new Set<string>();
  const abandonedPrefetches = new Set<string>();
  const watch = watchForProblems(page);

  const visit = async (pathname: string): Promise<void> => {
    watch.reset();
    await page.goto(`${site.origin}${pathname}`, { waitUntil: 'networkidle' });
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

  const queue = ['/'];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (reached.has(next)) continue;
    reached.add(next);
    const firstNew = links.length;
    await visit(next);
    for (const link of links.slice(firstNew)) {
      const isPage = link.path.endsWith('/') || link.path.endsWith('.html');
      if (isPage && !reached.has(link.path) && fileFor(distDir, link.path)) queue.push(link.path);
    }
  }
  for (const pathname of builtPages(distDir)) {
    if (!problems.has(pathname)) await visit(pathname);
  }
  await page.close();
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
