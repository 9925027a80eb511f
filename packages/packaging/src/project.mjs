// A fresh consumer project in a temporary folder: our packages installed from their packed tarballs, the
// third-party packages the snippets import linked from the repository's node_modules (TypeScript follows
// the links to their real place, so their own dependencies resolve there).
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installTarball, pack, packageDir, ROOT } from './pack.mjs';

/**
 * @param {readonly string[]} ours folders of packages/ to pack and install
 * @param {readonly string[]} thirdParty names to link from the repository's node_modules
 */
export function consumerProject(ours, thirdParty) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-kit-consumer-'));
  const tarballs = join(dir, 'tarballs');
  mkdirSync(tarballs);
  for (const name of ours) {
    const packed = pack(packageDir(name), tarballs);
    installTarball(packed.filename, packed.name, dir);
  }
  for (const name of thirdParty) {
    const target = join(dir, 'node_modules', name);
    mkdirSync(join(target, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), target, 'dir');
  }
  return dir;
}
