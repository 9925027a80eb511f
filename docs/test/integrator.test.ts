import { statSync } from 'node:fs';
import path from 'node:path';
import { type OperationId, operationExamples, operations } from '@svc-kit/contract';
import { EVENT_TYPES, STATUS_BY_REASON, WebhookVerificationError } from '@svc-kit/webhooks';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser';
import { distDir, docsDir } from './support/paths';
import { builtPages } from './support/site-files';
import { type StaticSite, serveStatic } from './support/static-server';

// What an integrator needs on the site (issue 20's "done when"): examples on every operation and event,
// a troubleshooting entry behind every SDK refusal, pages small enough to load, code that fits.

let site: StaticSite;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  site = await serveStatic(distDir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function open(pathname: string): Promise<void> {
  await page.goto(`${site.origin}${pathname}`, { waitUntil: 'load' });
}

/** Per `h2` section of the page: its id, and the code blocks in it (language class and text). */
async function sections(): Promise<
  { id: string; blocks: { lang: string; title: string; text: string }[] }[]
> {
  return page.$$eval('.vp-doc h2', (headings) =>
    headings.map((heading) => {
      const blocks: { lang: string; title: string; text: string }[] = [];
      for (
        let node = heading.nextElementSibling;
        node && node.tagName !== 'H2';
        node = node.nextElementSibling
      ) {
        const titles = [...node.querySelectorAll('.tabs label')].map((label) => label.textContent ?? '');
        const found = node.matches('div[class*="language-"]')
          ? [node]
          : [...node.querySelectorAll('div[class*="language-"]')];
        found.forEach((block, index) => {
          blocks.push({
            lang: /language-(\S+)/.exec(block.className)?.[1] ?? '',
            title: titles[index] ?? '',
            text: block.querySelector('pre')?.textContent ?? '',
          });
        });
      }
      return { id: heading.id, blocks };
    }),
  );
}

describe('the HTTP reference', () => {
  it('shows, for every operation, a curl request, a client request and a JSON answer', async () => {
    const found = new Map<string, { lang: string; title: string; text: string }[]>();
    for (const tag of ['workspace-webhooks', 'identity-contacts', 'identity-integrations']) {
      await open(`/api/http/${tag}.html`);
      for (const section of await sections()) found.set(section.id, section.blocks);
    }
    for (const [operationId, op] of Object.entries(operations)) {
      const blocks = found.get(operationId.toLowerCase());
      expect(blocks, operationId).toBeDefined();
      const curl = blocks?.find((block) => block.title === 'curl');
      expect(curl?.text, `${operationId}: curl`).toContain(`curl -X ${op.method}`);
      const client = blocks?.find((block) => block.title === '@svc-kit/client');
      expect(client?.text, `${operationId}: client`).toContain('await client.');
      // The answer, then one block per refusal: every refusal is the error body.
      const json = blocks?.filter((block) => block.lang === 'json') ?? [];
      const example = operationExamples[operationId as OperationId];
      if (example.answer.body !== undefined)
        expect(JSON.parse(json[0]?.text ?? '')).toEqual(example.answer.body);
      const refusals = json.filter((block) => block.text.includes('"error"'));
      expect(refusals.length, `${operationId}: refusals`).toBeGreaterThan(0);
      for (const refusal of refusals) expect(JSON.parse(refusal.text)).toHaveProperty('error.code');
    }
  });
});

describe('the event catalogue', () => {
  it('has an anchored example of every event type: its body and its headers', async () => {
    await open('/guide/events.html');
    for (const type of EVENT_TYPES) {
      const anchor = type.replace(/[._]/g, '-');
      const example = await page.$eval(`[id="${anchor}"]`, (heading) => {
        const texts: string[] = [];
        for (
          let node = heading.nextElementSibling;
          node && !/^H[23]$/.test(node.tagName);
          node = node.nextElementSibling
        ) {
          for (const pre of node.querySelectorAll('pre')) texts.push(pre.textContent ?? '');
        }
        return texts;
      });
      const body = example.find((text) => text.trim().startsWith('{'));
      expect(JSON.parse(body ?? '{}'), type).toMatchObject({ type });
      const headers = example.find((text) => text.includes('X-Service-Signature:'));
      expect(headers, type).toContain(`X-Service-Event-Type: ${type}`);
    }
  });
});

describe('the troubleshooting page', () => {
  it('has an entry for every refusal reason of the SDK, and each error message links to it', async () => {
    await open('/guide/troubleshooting.html');
    const reasons = Object.keys(STATUS_BY_REASON) as (keyof typeof STATUS_BY_REASON)[];
    expect(reasons.length).toBeGreaterThanOrEqual(11);
    for (const reason of reasons) {
      const message = new WebhookVerificationError(reason, 'Something was refused.').message;
      const link = /See (https:\/\/\S+\/docs\/guide\/troubleshooting\.md)#(\S+)$/.exec(message);
      expect(link, message).not.toBeNull();
      const anchor = link?.[2] ?? '';
      // The link names the page in the repository; the same anchor works on this site.
      expect(statSync(path.join(docsDir, 'guide', 'troubleshooting.md')).isFile()).toBe(true);
      const entry = await page.$eval(`[id="${anchor}"]`, (heading) => {
        let text = '';
        for (
          let node = heading.nextElementSibling;
          node && !/^H[23]$/.test(node.tagName);
          node = node.nextElementSibling
        ) {
          text += node.textContent ?? '';
        }
        return { tag: heading.tagName, text };
      });
      expect(entry.tag, reason).toMatch(/^H[23]$/);
      expect(entry.text, reason).toContain(reason);
    }
  });
});

describe('every page', () => {
  it('is at most 200 KB of HTML', () => {
    const sizes = builtPages(distDir).map((pathname) => {
      const file = pathname.endsWith('/') ? `${pathname}index.html` : pathname;
      return { pathname, bytes: statSync(path.join(distDir, file)).size };
    });
    expect(sizes.length).toBeGreaterThan(30);
    expect(sizes.filter((size) => size.bytes > 200 * 1024)).toEqual([]);
  });
});
