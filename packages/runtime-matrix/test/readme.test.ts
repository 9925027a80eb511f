// The SDK's README lists the runtimes and frameworks exactly as the matrix runs them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MATRIX } from '../src/cells.mjs';

function listedInReadme(): Record<string, string[]> {
  const readme = readFileSync(new URL('../../webhooks/README.md', import.meta.url), 'utf8');
  const section = /<!-- runtime-matrix[^>]*-->\n([\s\S]*?)<!-- \/runtime-matrix -->/.exec(readme)?.[1];
  if (section === undefined) throw new Error('packages/webhooks/README.md has no runtime-matrix table.');
  const rows = section
    .trim()
    .split('\n')
    .slice(2)
    .map((line) => line.split('|').map((cell) => cell.trim()));
  return Object.fromEntries(rows.map(([, runtime, served]) => [runtime!, served!.split(', ')]));
}

describe('the README', () => {
  it('lists the runtimes and frameworks of the matrix, no more and no less', () => {
    expect(listedInReadme()).toEqual(MATRIX);
  });
});
