import { chmodSync, mkdirSync, statSync } from 'node:fs';

/**
 * Makes the data dir, or closes an existing one, to the service's own user (0700). PGlite writes its files
 * readable and writable by anyone (0666 under the usual umask), and they hold password hashes, e-mails and
 * sealed secrets: a closed directory keeps other local accounts out whatever their mode. A directory we do
 * not own is left as it is (its owner chose).
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { mode, uid } = statSync(dir);
  if ((mode & 0o077) !== 0 && uid === process.getuid?.()) chmodSync(dir, 0o700);
}
