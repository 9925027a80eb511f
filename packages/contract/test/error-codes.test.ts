import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, errorBodySchema, isErrorCode } from '../src/index.js';

const page = readFileSync(new URL('../../../docs/guide/error-codes.md', import.meta.url), 'utf8');

/** Rows of the page's code table: | `code` | status | meaning |, however the columns are padded. */
function documentedCodes(): Record<string, { status: number; description: string }> {
  const rows: Record<string, { status: number; description: string }> = {};
  for (const match of page.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|\s*(.+?)\s*\|$/gm)) {
    const [, code, status, description] = match;
    if (code && status && description) rows[code] = { status: Number(status), description };
  }
  return rows;
}

describe('error codes', () => {
  it('the docs page lists exactly the registry, with the same statuses and wording', () => {
    expect(documentedCodes()).toEqual(ERROR_CODES);
  });

  it('covers every status the spec names for refusals', () => {
    const statuses = new Set<number>(Object.values(ERROR_CODES).map((entry) => entry.status));
    for (const status of [400, 401, 403, 404, 422, 429]) expect(statuses.has(status)).toBe(true);
    expect(ERROR_CODES.idempotency_mismatch.status).toBe(422);
    expect(ERROR_CODES.workspace_suspended.status).toBe(403);
    expect(ERROR_CODES.workspace_deletion_hold.status).toBe(403);
  });

  it('every code fits the error body', () => {
    for (const code of Object.keys(ERROR_CODES)) {
      expect(isErrorCode(code)).toBe(true);
      expect(errorBodySchema.safeParse({ error: { code, message: 'm', request_id: 'r' } }).success).toBe(
        true,
      );
    }
    expect(isErrorCode('toString')).toBe(false);
  });
});
