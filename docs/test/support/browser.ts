import type { Page } from 'playwright-core';

// One launcher for the docs' and the portal's browser tests (same binary, same flags).
export { launchChromium } from '../../../reference-service/test/support/chromium.js';

export interface ProblemWatch {
  /** What went wrong since the last `reset()`. */
  readonly problems: string[];
  /**
   * Prefetches (VitePress hints the chunks of linked pages) that the browser itself gave up on. A
   * cancelled hint is not a fault the reader sees; the caller checks that their targets exist.
   */
  readonly abandonedPrefetches: string[];
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
  const abandonedPrefetches: string[] = [];
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
    const isPrefetch = /prefetch/i.test(request.headers()['sec-purpose'] ?? request.headers().purpose ?? '');
    if (isPrefetch && reason === 'net::ERR_ABORTED') abandonedPrefetches.push(request.url());
    // The browser's own favicon fetch, cut off by the next navigation: not the page's fault. A missing
    // favicon still shows, as the response's 404 below.
    else if (reason === 'net::ERR_ABORTED' && new URL(request.url()).pathname.endsWith('/favicon.svg'))
      return;
    else problems.push(`request failed: ${request.url()} (${reason})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return {
    problems,
    abandonedPrefetches,
    async settle(quietMs = 300, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (inFlight > 0 || Date.now() - lastChange < quietMs) {
        if (Date.now() > deadline) throw new Error(`requests still in flight after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    reset() {
      problems.length = 0;
      abandonedPrefetches.length = 0;
    },
  };
}
