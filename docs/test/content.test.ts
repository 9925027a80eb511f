import { readFileSync } from 'node:fs';
import path from 'node:path';
import { operations } from '@svc-kit/contract';
import { EVENT_TYPES, RESERVED_EVENT_TYPES } from '@svc-kit/webhooks';
import { describe, expect, it } from 'vitest';
import { builtHtml, headings, ids } from './support/built-html';
import { docsDir } from './support/paths';

const PACKAGES = ['webhooks', 'contract', 'client', 'mock'];

/** What users import from a package: one specifier per typed entry of its exports map. */
function specifiersOf(pkg: string): string[] {
  const manifest = JSON.parse(
    readFileSync(path.join(docsDir, '..', 'packages', pkg, 'package.json'), 'utf8'),
  );
  return Object.keys(manifest.exports ?? {})
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => (subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`));
}

/** `/api/webhooks/express/index.html` for `@svc-kit/webhooks/express`, as the reference generator names pages. */
function pageOf(specifier: string): string {
  return `/api/${specifier.replace(/^@svc-kit\//, '')}/index.html`;
}

/** The symbols an entry point's page lists: each links to its own page. */
function linkedNames(html: string): string[] {
  return [...html.matchAll(/<a [^>]*href="[^"]*"[^>]*>([\s\S]*?)<\/a>/g)].map((match) =>
    (match[1] ?? '').replace(/<[^>]+>/g, '').trim(),
  );
}

describe('the TypeScript reference', () => {
  for (const pkg of PACKAGES) {
    it(`has a page for every entry point of @svc-kit/${pkg}, documenting each runtime export`, async () => {
      const specifiers = specifiersOf(pkg);
      expect(specifiers.length).toBeGreaterThan(0);
      // Two specifiers of one build (`.` and `./node`) share a page; the other links to it.
      const pages = specifiers.map((specifier) => builtHtml(pageOf(specifier)));
      const documented = new Set(
        pages
          .flatMap((html) => [...headings(html), ...linkedNames(html)])
          .map((name) => name.replace(/\(.*$/, '')),
      );
      for (const specifier of specifiers) {
        const exported = Object.keys(await import(specifier)).filter((name) => name !== 'default');
        expect(exported.length, `runtime exports of ${specifier}`).toBeGreaterThan(0);
        expect(
          exported.filter((name) => !documented.has(name)),
          `undocumented exports of ${specifier}`,
        ).toEqual([]);
      }
    });
  }
});

describe('the adapters reference', () => {
  it('documents the types every adapter names in its signature: WebhookReceiver and BodyLimitOptions', () => {
    for (const adapter of ['express', 'fastify', 'fetch', 'node-http', 'koa']) {
      const names = linkedNames(builtHtml(`/api/webhooks/${adapter}/index.html`));
      expect(names, adapter).toEqual(expect.arrayContaining(['WebhookReceiver', 'BodyLimitOptions']));
    }
  });
});

describe('the HTTP reference', () => {
  it('has a section for every operation of the contract', () => {
    const pages = ['workspace-webhooks', 'identity-contacts', 'identity-integrations'].map((name) =>
      ids(builtHtml(`/api/http/${name}.html`)),
    );
    const missing = Object.keys(operations).filter(
      (operationId) => !pages.some((pageIds) => pageIds.has(operationId.toLowerCase())),
    );
    expect(Object.keys(operations).length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});

describe('the event catalogue', () => {
  it('lists every event type the SDK knows, and the reserved names', () => {
    const html = builtHtml('/guide/events.html');
    for (const type of [...EVENT_TYPES, ...RESERVED_EVENT_TYPES])
      expect(html).toContain(`<code>${type}</code>`);
  });
});
