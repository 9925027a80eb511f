import type { TestProject } from 'vitest/node';
import { portalBuildFor } from './support/portal-build.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built portal every browser test serves (support/instance.ts). */
    portalDir: string;
  }
}

/**
 * Once per test run, before any test file: finds or makes the portal build the browser tests serve, so
 * that no test file runs a Vite build of its own. When dist/portal is current (CI builds first), it costs
 * a walk over the portal's sources.
 */
export default async function setup(project: TestProject): Promise<void> {
  const started = Date.now();
  const { dir, how } = await portalBuildFor();
  if (how === 'built')
    console.info(`portal built for the browser tests in ${Date.now() - started} ms (${dir})`);
  project.provide('portalDir', dir);
}
