import type { Page } from 'playwright-core';

// One launcher for the docs' and the portal's browser tests (same binary, same flags).
export { launchChromium } from '../../../reference-service/test/support/chromium.js';

export interface ProblemWatch {
  /** What went wrong since the last `reset()`. */
  readonly problems: string[];
  /**
   * Requests cut off before they finished (`net::ERR_ABORTED`): the chunks VitePress prefetches for linked
   * pages when the browser is idle, which can start at any moment, and the browser's own favicon fetch,
   * both cancelled by the next navigation. Not a fault the reader sees; the caller checks that each
   * target exists, so a missing file is still found (a request that reached the server shows as its 404).
   */
  readonly abandoned: string[];
  /** Resolves once no request has been in flight for `quietMs` (VitePress prefetches pages when idle). */
  settle(quietMs?: number, timeoutMs?: number): Promise<void>;
  reset(): void;
}

/**
 * Records everything that says a page is broken: console errors, uncaught exceptions, requests that
 * failed or answered 400 and above. Attach before navigating; `settle()` before leaving a page, so that a
 * request still running is not aborted by the navigation and mistaken for a failure.
 */
export function watchForProblems(page: Page): ProblemWatch {
  const problems: string[] = [];
  const abandoned: string[] = [];
  let inFlight = 0;
  let lastChange = Date.now();
  const changed = (delta: number) => {
    inFlight += delta;
    lastChange = Date.now();
  };
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('request', () => changed(1));
  page.on('requestfinished', () => changed(-1));
  page.on('requestfailed', (request) => {
    changed(-1);
    const reason = request.failure()?.errorText ?? 'unknown';
    if (reason === 'net::ERR_ABORTED') abandoned.push(request.url());
    else problems.push(`request failed: ${request.url()} (${reason})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return {
    problems,
    abandoned,
    // 100 ms: VitePress starts its prefetches within a few milliseconds of the load, and each new request
    // starts the quiet time again; 300 ms cost the crawl a minute over its 320 pages and found nothing more.
    async settle(quietMs = 100, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (inFlight > 0 || Date.now() - lastChange < quietMs) {
        if (Date.now() > deadline) throw new Error(`requests still in flight after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    reset() {
      problems.length = 0;
      abandoned.length = 0;
    },
  };
}
