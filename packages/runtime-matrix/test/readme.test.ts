// The SDK's README lists the runtimes and frameworks exactly as the matrix runs them, the matrix runs the
// README's own code, found by its markers, and the docs' quickstart shows that code, not copies of it.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MATRIX } from '../src/cells.mjs';
import { readmeSources, withOlderMajors } from '../src/readme-text.mjs';

const README = readFileSync(new URL('../../webhooks/README.md', import.meta.url), 'utf8');
const EXAMPLES = readdirSync(new URL('../../webhooks/examples/', import.meta.url)).filter((name) =>
  name.endsWith('.ts'),
);

function listedInReadme(): Record<string, string[]> {
  const section = /<!-- runtime-matrix[^>]*-->\n([\s\S]*?)<!-- \/runtime-matrix -->/.exec(README)?.[1];
  if (section === undefined) throw new Error('packages/webhooks/README.md has no runtime-matrix table.');
  const rows = section
    .trim()
    .split('\n')
    .slice(2)
    .map((line) => line.split('|').map((cell) => cell.trim()));
  return Object.fromEntries(rows.map(([, runtime, served]) => [runtime!, served!.split(', ')]));
}

describe('the README', () => {
  it('lists the runtimes and frameworks of the matrix, no more and no less', () => {
    expect(listedInReadme()).toEqual(MATRIX);
  });

  it('gives the matrix its first snippet, its rotation snippet and every quickstart', () => {
    const sources = readmeSources(README);
    expect(Object.keys(sources).sort()).toEqual(
      ['first-snippet.ts', 'rotation.ts', ...EXAMPLES.map((name) => `examples/${name}`)].sort(),
    );
    const firstBlock = /\n```ts\n([\s\S]*?)```\n/.exec(README)![1]!;
    expect(sources['first-snippet.ts']).toContain(firstBlock.replace(/^import .*\n+/gm, ''));
  });

  it('runs the Express and Koa quickstarts on their older majors by the import specifier alone', () => {
    const sources = readmeSources(README);
    const all = withOlderMajors(sources);
    expect(all['examples/express-4.ts']).toBe(
      sources['examples/express.ts']!.replace("from 'express';", "from 'express4';"),
    );
    expect(all['examples/koa-2.ts']).toBe(sources['examples/koa.ts']!.replace("from 'koa';", "from 'koa2';"));
    const renamed = { ...sources, 'examples/koa.ts': sources['examples/koa.ts']!.replace("'koa'", "'koa3'") };
    expect(() => withOlderMajors(renamed)).toThrow(/no longer imports 'koa'/);
  });

  it('refuses a marked first snippet that is no longer the first block', () => {
    const moved = README.replace(
      '## Verify a delivery',
      '## Verify a delivery\n\n```ts\nconst x = 1;\n```\n',
    );
    expect(() => readmeSources(moved)).toThrow(/not the first/);
  });
});

describe("the docs' quickstart", () => {
  it('shows every README quickstart but Express (its own tutorial) as the file the matrix runs', () => {
    const page = readFileSync(new URL('../../../docs/guide/quickstart.md', import.meta.url), 'utf8');
    const section = page.slice(
      page.indexOf('\n## Other frameworks\n'),
      page.indexOf('\n## Keep the signing'),
    );
    const included = [...section.matchAll(/^<<< @\/\.\.\/packages\/webhooks\/examples\/(\S+) /gm)].map(
      (match) => match[1],
    );
    expect(included.sort()).toEqual(EXAMPLES.filter((name) => name !== 'express.ts').sort());
    expect(section).not.toMatch(/^<<< @\/snippets\//m);
  });
});
