import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export { launchChromium } from '../../support/chromium.js';

/**
 * Everything that says the page is broken, kept for an assertion: uncaught exceptions, console errors
 * other than the refusals the test provokes on purpose, and CSP violations (reported to the console).
 */
export function watchPage(page: Page): { errors: string[] } {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    const text = message.text();
    // A refused API call is logged by Chromium as a failed resource; the page shows it in words.
    if (message.type() === 'error' && !/Failed to load resource/.test(text)) errors.push(text);
  });
  return { errors };
}

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeScript: Promise<string> | undefined;

/**
 * axe-core injected from node_modules and run on the page as it is: 0 serious or critical violations.
 * The portal's CSP refuses inline scripts (a script tag would be blocked, rightly), so axe goes in
 * through the DevTools protocol's evaluate, which CSP does not govern; the page keeps its real CSP.
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  axeScript ??= readFile(axeSource, 'utf8');
  await page.evaluate(await axeScript);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`);
  });
  expect(violations, `axe on ${name}`).toEqual([]);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}
