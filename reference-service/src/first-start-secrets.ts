import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';
import { ensurePrivateDir } from './store/private-dir.js';

/** The file of the data dir that holds the first start's secrets when they are not printed. */
export function firstStartFileIn(dataDir: string): string {
  return join(dataDir, 'first-start.txt');
}

/**
 * Where the sandbox owner's first-start secrets (password, TOTP seed, an all-scope key) go. In a terminal
 * they are printed, for the newcomer in front of it. Without one (a container, a platform, a service
 * manager), stdout is the log that many people read and that keeps everything: they go to a file only the
 * service's user can read, and the banner says where. `SVC_FIRST_START_SECRETS=stdout` or `=file` decides
 * instead (`choice`, read by config.ts). Answers the file, or `undefined` for stdout.
 */
export function firstStartSecretsFile(
  dataDir: string,
  choice: Config['firstStartSecrets'],
  terminal: boolean = process.stdout.isTTY === true,
): string | undefined {
  if (choice === 'stdout' || (choice !== 'file' && terminal)) return undefined;
  return firstStartFileIn(dataDir);
}

export function writeFirstStartSecrets(path: string, dataDir: string, lines: readonly string[]): void {
  ensurePrivateDir(dataDir);
  writeFileSync(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  // An older file keeps its mode through writeFileSync: made private whatever it was.
  chmodSync(path, 0o600);
}
