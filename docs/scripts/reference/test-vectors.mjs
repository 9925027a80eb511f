// @ts-check
// Copies the test vectors and their schemas into the site (docs/public/test-vectors/, gitignored), so the
// test-vectors page can offer them for download. The repository's files stay the only source.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { docsRoot, repoRoot } from './paths.mjs';

/** @returns {string[]} the files copied */
export function copyTestVectors() {
  const from = path.join(repoRoot, 'test-vectors');
  const to = path.join(docsRoot, 'public', 'test-vectors');
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  const files = readdirSync(from).filter((name) => /-cases(\.schema)?\.json$/.test(name));
  for (const name of files) copyFileSync(path.join(from, name), path.join(to, name));
  return files;
}
