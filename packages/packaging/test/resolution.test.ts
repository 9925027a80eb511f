// The README snippets, type-checked against the packed tarballs in a fresh project under each
// moduleResolution an integrator may have: the first thing a reader pastes must compile everywhere.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageDir, ROOT } from '../src/pack.mjs';
import { consumerProject } from '../src/project.mjs';
import { asCommonJsModule, readmeSnippets } from '../src/snippets.mjs';

const THIRD_PARTY = ['zod', 'express', 'fastify', 'koa', 'hono', '@types'];
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

// What the snippets take from the reader's own code; typed, so the snippets' use of them is checked too.
const GLOBALS = `
declare const rawBody: string;
declare const req: { headers: Record<string, string | string[] | undefined> };
declare const secret: string;
declare const queue: { push(item: unknown): Promise<void> };
declare function syncContact(contact: string): Promise<void>;
declare const metrics: { count(name: string): void };
declare const log: { warn(value: unknown): void };
declare function fetchThread(threadId: string): Promise<unknown>;
declare function refresh(integration: string, version: number): Promise<unknown>;
declare const client: import('@svc-kit/client').Client;
declare const fp: string;
declare function notifyOwner(): void;
`;

// Proof that the types are real under this resolution (an unresolved or \`any\` type would pass the
// snippets): each @ts-expect-error fails the compile if its line stops being an error.
const TYPES_ARE_REAL = `
import { Webhooks, verify, verifyAsync } from '@svc-kit/webhooks';
import { webhookMiddleware } from '@svc-kit/webhooks/express';
import { webhookPlugin } from '@svc-kit/webhooks/fastify';
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { webhookMiddleware as koaMiddleware } from '@svc-kit/webhooks/koa';
import { verifySignature } from '@svc-kit/webhooks/node';
import { createNodeHandler } from '@svc-kit/webhooks/node-http';
import { verifySignatureAsync } from '@svc-kit/webhooks/web';
import { Client } from '@svc-kit/client';

const webhooks = new Webhooks({ secret: 's' });
// @ts-expect-error: a misspelt event name does not compile
webhooks.on('message.recieved', () => {});
// @ts-expect-error: verify returns an event
export const a: number = verify('', {}, { secret: 's' });
// @ts-expect-error: verifyAsync returns a promise of an event
export const b: string = verifyAsync('', {}, { secret: 's' });
// @ts-expect-error: the middleware takes a Webhooks
webhookMiddleware('webhooks');
// @ts-expect-error: the fetch handler takes a Webhooks
createFetchHandler(42);
// @ts-expect-error: the node:http handler takes a Webhooks
createNodeHandler('webhooks');
// @ts-expect-error: the Koa middleware takes a Webhooks
koaMiddleware(42);
// @ts-expect-error: the plugin is a Fastify plugin, not a string
export const c: string = webhookPlugin;
// @ts-expect-error: verifySignature returns nothing
export const d: string = verifySignature('', '', { secret: 's' });
// @ts-expect-error: verifySignatureAsync returns a promise
export const e: string = verifySignatureAsync('', '', { secret: 's' });
// @ts-expect-error: baseUrl must be a string
new Client({ apiKey: 'k', baseUrl: 42 });
`;

interface Mode {
  name: string;
  type: 'module' | 'commonjs';
  compilerOptions: Record<string, string>;
}

const MODES: Mode[] = [
  { name: 'node10', type: 'commonjs', compilerOptions: { module: 'commonjs', moduleResolution: 'node10' } },
  {
    name: 'node16, CommonJS',
    type: 'commonjs',
    compilerOptions: { module: 'node16', moduleResolution: 'node16' },
  },
  { name: 'node16, ESM', type: 'module', compilerOptions: { module: 'node16', moduleResolution: 'node16' } },
  { name: 'nodenext', type: 'module', compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } },
  { name: 'bundler', type: 'module', compilerOptions: { module: 'esnext', moduleResolution: 'bundler' } },
];

const SNIPPETS = [
  ...readmeSnippets(join(packageDir('webhooks'), 'README.md'), [...THIRD_PARTY, '@svc-kit']).map((s) => ({
    file: `webhooks-readme-${s.index}.ts`,
    code: s.code,
  })),
  ...readmeSnippets(join(packageDir('client'), 'README.md'), [...THIRD_PARTY, '@svc-kit']).map((s) => ({
    file: `client-readme-${s.index}.ts`,
    code: s.code,
  })),
];

let project: string;
beforeAll(() => {
  project = consumerProject(['webhooks', 'contract', 'client'], THIRD_PARTY);
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('README snippets against the packed tarballs', () => {
  it('include the first snippet of each README and the quickstarts', () => {
    const files = SNIPPETS.map((snippet) => snippet.code);
    expect(
      files.some((code) =>
        code.includes("import { verify, isWebhookVerificationError } from '@svc-kit/webhooks'"),
      ),
    ).toBe(true);
    expect(files.some((code) => code.includes("from '@svc-kit/webhooks/express'"))).toBe(true);
    expect(files.some((code) => code.includes("from '@svc-kit/webhooks/fastify'"))).toBe(true);
    expect(files.some((code) => code.includes("from '@svc-kit/webhooks/fetch'"))).toBe(true);
    expect(files.some((code) => code.includes("from '@svc-kit/webhooks/koa'"))).toBe(true);
    expect(files.some((code) => code.includes("from '@svc-kit/webhooks/node-http'"))).toBe(true);
    expect(files.some((code) => code.includes("import { Client } from '@svc-kit/client'"))).toBe(true);
    expect(SNIPPETS.length).toBeGreaterThanOrEqual(10);
  });

  it.each(MODES)('type-check under moduleResolution $name', (mode) => {
    const dir = join(project, mode.name.replace(/\W+/g, '-'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: mode.type }),
    );
    writeFileSync(join(dir, 'globals.d.ts'), GLOBALS);
    const files = [...SNIPPETS, { file: 'types-are-real.ts', code: TYPES_ARE_REAL }];
    for (const { file, code } of files) {
      writeFileSync(join(dir, file), mode.type === 'commonjs' ? asCommonJsModule(code) : code);
    }
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...mode.compilerOptions,
          target: 'es2022',
          lib: ['es2022', 'dom', 'dom.iterable'],
          types: ['node'],
          strict: true,
          esModuleInterop: true,
          skipLibCheck: true,
          noEmit: true,
        },
        files: ['globals.d.ts', ...files.map(({ file }) => file)],
      }),
    );
    const result = spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
