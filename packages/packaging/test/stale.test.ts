// The rule of build-if-stale.mjs (npm start, the sandbox commands, npm run pack:local): build a package
// only when a built entry file is missing or older than a source.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PUBLISHED, packageDir } from '../src/pack.mjs';
import { builtEntryFiles, staleAgainst, staleReason } from '../src/stale.mjs';

const root = mkdtempSync(join(tmpdir(), 'svc-kit-stale-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A package folder whose files carry the given ages, in seconds before now. */
function fakePackage(name: string, files: Record<string, number>, manifest: object): string {
  const dir = join(root, name);
  const now = Date.now() / 1000;
  for (const [file, age] of Object.entries({ 'package.json': 1_000, ...files })) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), file === 'package.json' ? JSON.stringify(manifest) : 'x');
    utimesSync(join(dir, file), now - age, now - age);
  }
  return dir;
}

const manifest = {
  exports: {
    '.': { import: './dist/index.js', require: './dist/index.cjs' },
    './package.json': './package.json',
  },
  types: './dist/index.d.cts',
  bin: { tool: './dist/cli.js' },
};

describe('staleReason', () => {
  it('reads the built entry files from exports, types and bin, and nothing outside dist', () => {
    expect(builtEntryFiles(manifest)).toEqual([
      './dist/cli.js',
      './dist/index.cjs',
      './dist/index.d.cts',
      './dist/index.js',
    ]);
  });

  it('is current when every entry file is newer than every source and build setting', () => {
    const dir = fakePackage(
      'current',
      {
        'src/index.ts': 500,
        'src/deep/part.ts': 400,
        'tsup.config.ts': 900,
        'dist/index.js': 10,
        'dist/index.cjs': 10,
        'dist/index.d.cts': 10,
        'dist/cli.js': 10,
        // Not inputs of the build: tests and docs change without one.
        'test/a.test.ts': 1,
        'README.md': 1,
      },
      manifest,
    );
    expect(staleReason(dir)).toBeUndefined();
  });

  it('is stale when a source, however deep, is newer than the oldest entry file', () => {
    const files = {
      'src/index.ts': 500,
      'src/deep/part.ts': 5,
      'dist/index.js': 10,
      'dist/index.cjs': 10,
      'dist/index.d.cts': 10,
      'dist/cli.js': 10,
    };
    expect(staleReason(fakePackage('deep-source', files, manifest))).toBe('a source is newer than the build');
    expect(
      staleReason(
        fakePackage('old-entry', { ...files, 'src/deep/part.ts': 500, 'dist/cli.js': 600 }, manifest),
      ),
    ).toBe('a source is newer than the build');
    expect(
      staleReason(
        fakePackage('new-config', { ...files, 'src/deep/part.ts': 500, 'tsconfig.json': 2 }, manifest),
      ),
    ).toBe('a source is newer than the build');
  });

  it('is stale when an entry file is missing (never built, or a build cut short)', () => {
    const dir = fakePackage('missing', { 'src/index.ts': 500, 'dist/index.js': 10 }, manifest);
    expect(staleReason(dir)).toBe('./dist/cli.js is missing');
  });

  it('always builds a package whose manifest names no built file', () => {
    expect(staleReason(fakePackage('unnamed', { 'src/index.ts': 500 }, { main: './index.js' }))).toBe(
      'its manifest names no built file',
    );
  });
});

describe('staleAgainst', () => {
  it('compares outputs with input files and folders, ignoring inputs that do not exist', () => {
    const dir = fakePackage(
      'service',
      { 'src/a.ts': 500, 'portal/src/app.tsx': 400, 'tsup.config.ts': 900, 'dist/main.js': 10 },
      {},
    );
    const at = (path: string) => join(dir, path);
    const inputs = ['src', 'portal', 'tsup.config.ts', 'absent-folder', 'absent.json'].map(at);
    expect(staleAgainst([at('dist/main.js')], inputs)).toBeUndefined();
    expect(staleAgainst([at('dist/main.js'), at('dist/portal/index.html')], inputs)).toBe(
      `${at('dist/portal/index.html')} is missing`,
    );
    const now = Date.now() / 1000;
    utimesSync(at('portal/src/app.tsx'), now - 1, now - 1);
    expect(staleAgainst([at('dist/main.js')], inputs)).toBe('a source is newer than the build');
  });

  it('counts a linked source by the file it points to, and ignores a broken link', () => {
    const dir = fakePackage(
      'linked',
      { 'src/a.ts': 500, 'elsewhere/shared.ts': 500, 'dist/main.js': 10 },
      {},
    );
    const at = (path: string) => join(dir, path);
    symlinkSync(at('elsewhere/shared.ts'), at('src/shared.ts'));
    symlinkSync(at('elsewhere/gone.ts'), at('src/gone.ts'));
    expect(staleAgainst([at('dist/main.js')], [at('src')])).toBeUndefined();
    const now = Date.now() / 1000;
    utimesSync(at('elsewhere/shared.ts'), now - 1, now - 1);
    expect(staleAgainst([at('dist/main.js')], [at('src')])).toBe('a source is newer than the build');
  });
});

// `npm test` builds everything before the tests run; `npm run pack:local`, which the docs' quickstart test
// runs, must then only pack: a rebuild would replace dist/ under the other test files running beside it.
it.each(PUBLISHED)('finds packages/%s current after the build', (name) => {
  expect(staleReason(packageDir(name))).toBeUndefined();
});
