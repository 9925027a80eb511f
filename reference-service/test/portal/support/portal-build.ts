import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const CONFIG = fileURLToPath(new URL('../../../portal/vite.config.ts', import.meta.url));
export const PORTAL_DIST = fileURLToPath(new URL('../../../dist/portal', import.meta.url));

let built: Promise<void> | undefined;

/** Builds the portal from its sources once per test process, so the browser tests never see a stale build. */
export function buildPortal(): Promise<void> {
  built ??= build({ configFile: CONFIG, logLevel: 'error' }).then(() => undefined);
  return built;
}
