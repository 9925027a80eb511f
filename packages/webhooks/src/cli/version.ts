import { readFileSync } from 'node:fs';

/**
 * The installed package's version, read from its package.json: the CLI sits two folders below the package
 * root in the sources (src/cli) and in the build (dist/cli) alike, so the answer is always the version
 * actually installed, never one baked in at build time.
 */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}
