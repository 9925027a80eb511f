import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Where the screenshots go: test-results/ (ignored by git) on every run; with SVC_PORTAL_SCREENSHOTS=1,
 * docs/public/portal/, the pictures the reference-service guide shows (regenerate them when a page changes).
 */
export const SCREENSHOTS = fileURLToPath(
  process.env.SVC_PORTAL_SCREENSHOTS === '1'
    ? new URL('../../../../docs/public/portal/', import.meta.url)
    : new URL('../../../test-results/portal/', import.meta.url),
);

export async function screenshot(page: Page, name: string, enabled: boolean): Promise<void> {
  if (!enabled) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** Waits until `read` returns something, polling; fails with `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  read: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 15_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The text of a shown-once value (secret, key, codes) by its test id. */
export async function shownOnce(page: Page, testId: string): Promise<string> {
  const locator = page.getByTestId(testId);
  await locator.waitFor();
  const text = (await locator.textContent())?.trim() ?? '';
  expect(text).not.toBe('');
  return text;
}

/** Signs up through the portal's form and lands on the MFA page. */
export async function signUp(
  page: Page,
  baseUrl: string,
  email: string,
  password: string,
  workspace: string,
) {
  await page.goto(`${baseUrl}/#/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByLabel('Workspace name (optional)').fill(workspace);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Set up MFA' }).waitFor();
}

/** Enrols MFA on the open MFA page; returns the secret read from the page. */
export async function enrolMfa(page: Page, code: (secret: string) => Promise<string>): Promise<string> {
  await page.getByRole('button', { name: 'Start MFA setup' }).click();
  const secret = await shownOnce(page, 'totp-secret');
  await page.getByLabel('First code from the app').fill(await code(secret));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByRole('heading', { name: 'MFA is on' }).waitFor();
  return secret;
}
