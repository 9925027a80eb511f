// Packs workspace packages with npm itself (prepack guard included) and installs tarballs into a folder.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const PUBLISHED = ['webhooks', 'contract', 'client', 'mock'];

/** @param {string} name a folder of packages/ */
export const packageDir = (name) => join(ROOT, 'packages', name);

/**
 * `npm pack` of one package into `destination`.
 * @param {string} dir
 * @param {string} destination
 * @returns {{ name: string, filename: string, files: string[] }}
 */
export function pack(dir, destination) {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [result] = JSON.parse(out.slice(out.indexOf('[')));
  return {
    name: result.name,
    filename: join(destination, result.filename),
    files: result.files.map((/** @type {{ path: string }} */ file) => file.path).sort(),
  };
}

/**
 * Extracts a tarball as `node_modules/<name>` of `projectDir`, as npm would install it.
 * @param {string} tarball
 * @param {string} name
 * @param {string} projectDir
 */
export function installTarball(tarball, name, projectDir) {
  const staging = mkdtempSync(join(tmpdir(), 'svc-kit-unpack-'));
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', staging]);
    const target = join(projectDir, 'node_modules', name);
    mkdirSync(join(target, '..'), { recursive: true });
    rmSync(target, { recursive: true, force: true });
    const [folder] = readdirSync(staging);
    renameSync(join(staging, /** @type {string} */ (folder)), target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
