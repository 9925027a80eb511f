import { readFileSync } from 'node:fs';
import { SANDBOX_API_KEY } from '@svc-kit/mock';
import { expect, test } from 'vitest';
// The README's setup, verbatim: importing it registers its hooks on this file's tests.
import './readme-setup.js';

/** The formatter puts one statement per line in the file; the README keeps the hooks on one. Same tokens. */
const normalise = (code: string) => code.replace(/\s+/g, ' ').trim();

test("the README's setup snippet is readme-setup.ts, which this file runs", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const snippet = /<!-- setup-snippet:[^>]*-->\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  const setup = readFileSync(new URL('./readme-setup.ts', import.meta.url), 'utf8');
  expect(snippet).toBeDefined();
  expect(normalise(snippet!)).toBe(normalise(setup));
});

const api = 'https://api.example.test/v1/identities/demo/integrations';
const headers = { authorization: `Bearer ${SANDBOX_API_KEY}` };

test('the setup serves a sandbox from the built package', async () => {
  const created = await fetch(api, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ endpoint: 'https://tools.example.org/mcp' }),
  });
  expect(created.status).toBe(201);
  const listed = await fetch(api, { headers });
  expect((await listed.json()).integrations).toHaveLength(1);
});

test('afterEach reset the sandbox after the previous test', async () => {
  const listed = await fetch(api, { headers });
  expect(await listed.json()).toEqual({ integrations: [] });
});
