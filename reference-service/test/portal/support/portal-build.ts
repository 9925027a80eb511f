import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const CONFIG = fileURLToPath(new URL('../../../portal/vite.config.ts', import.meta.url));

let built: Promise<string> | undefined;

/**
 * Builds the portal from its sources once per test process, into a folder of that process: the browser
 * tests never see a stale build, and test files running in parallel never empty each other's folder.
 * Answers the folder to serve.
 */
export function buildPortal(): Promise<string> {
  built ??= (async () => {
    const outDir = join(mkdtempSync(join(tmpdir(), 'svc-portal-')), 'portal');
    await build({ configFile: CONFIG, logLevel: 'error', build: { outDir, emptyOutDir: true } });
    return outDir;
  })();
  return built;
}
