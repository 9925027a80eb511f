// Packs every published package with npm, as a release would, and checks what the tarball holds.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkPackage } from '../src/manifest.mjs';
import { PUBLISHED, pack, packageDir, ROOT } from '../src/pack.mjs';

const GUARD = fileURLToPath(new URL('../prepack-guard.mjs', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'svc-kit-pack-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');

describe.each(PUBLISHED)('the tarball of packages/%s', (name) => {
  const dir = packageDir(name);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

  it('holds exactly the built entry points, their declaration chunks, README, LICENSE and metadata', () => {
    const { files } = pack(dir, out);
    const { expected, problems } = checkPackage(dir, { licenseText: license });
    expect(problems).toEqual([]);
    expect(files).toEqual(expected);
    expect(files).toContain('LICENSE');
    // One declaration file per JavaScript entry file, in both formats.
    for (const file of files.filter(
      (path) => /^dist\/.*\.(c?js)$/.test(path) && !path.startsWith('dist/cli/'),
    )) {
      expect(files, file).toContain(file.replace(/\.js$/, '.d.ts').replace(/\.cjs$/, '.d.cts'));
    }
    expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
  });

  it('ships the MIT licence text of the repository and complete registry metadata', () => {
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe(license);
    expect(manifest.license).toBe('MIT');
    expect(manifest.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/svc-kit/svc-kit.git',
      directory: `packages/${name}`,
    });
    expect(manifest.homepage).toBe(`https://github.com/svc-kit/svc-kit/tree/main/packages/${name}#readme`);
    expect(manifest.bugs).toEqual({ url: 'https://github.com/svc-kit/svc-kit/issues' });
    expect(manifest.keywords.length).toBeGreaterThan(2);
    expect(manifest.scripts.prepack).toBe('node ../packaging/prepack-guard.mjs');
  });
});

describe('the prepack guard', () => {
  // A copy of the built webhooks package whose prepack points at the guard, so npm itself runs it.
  function copyOfWebhooks(): string {
    const copy = mkdtempSync(join(tmpdir(), 'svc-kit-guard-'));
    const source = packageDir('webhooks');
    for (const entry of ['package.json', 'README.md', 'EVENTS.md', 'LICENSE', 'bin', 'dist']) {
      cpSync(join(source, entry), join(copy, entry), { recursive: true });
    }
    const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
    manifest.scripts = { prepack: `node ${JSON.stringify(GUARD)}` };
    writeFileSync(join(copy, 'package.json'), JSON.stringify(manifest, null, 2));
    return copy;
  }

  function npmPack(dir: string) {
    const result = spawnSync('npm', ['pack', '--pack-destination', dir], { cwd: dir, encoding: 'utf8' });
    const tarballs = readdirSync(dir).filter((file) => file.endsWith('.tgz'));
    rmSync(dir, { recursive: true, force: true });
    return { status: result.status, stderr: result.stderr, tarballs };
  }

  it('lets a complete package through', () => {
    const result = npmPack(copyOfWebhooks());
    expect(result.status).toBe(0);
    expect(result.tarballs).toHaveLength(1);
  });

  it.each([
    [
      'a declaration file (a build still running)',
      'dist/index.web.d.ts',
      /dist\/index\.web\.d\.ts is missing/,
    ],
    ['a shared declaration chunk', 'dist/<chunk>', /dist\/result-\w+\.d\.ts is missing/],
    ['the LICENSE', 'LICENSE', /LICENSE is missing/],
    ['the CLI', 'dist/cli/main.js', /dist\/cli\/main\.js is missing/],
  ])('fails the pack, writing no tarball, when %s is missing', (_case, file, message) => {
    const copy = copyOfWebhooks();
    const target =
      file === 'dist/<chunk>'
        ? join(
            'dist',
            readdirSync(join(copy, 'dist')).find((entry) => /^result-.*\.d\.ts$/.test(entry)) ?? '',
          )
        : file;
    expect(existsSync(join(copy, target)), target).toBe(true);
    rmSync(join(copy, target));
    const result = npmPack(copy);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(result.tarballs).toEqual([]);
  });

  it('fails on a relative README link and on missing metadata', () => {
    const copy = copyOfWebhooks();
    const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
    delete manifest.repository;
    writeFileSync(join(copy, 'package.json'), JSON.stringify(manifest));
    writeFileSync(join(copy, 'README.md'), '# x\n\nSee [the contract](../contract/README.md).\n');
    const result = npmPack(copy);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/README\.md links to "\.\.\/contract\/README\.md"/);
    expect(result.stderr).toMatch(/package\.json has no "repository"/);
  });
});
