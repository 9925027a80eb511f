import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('..', import.meta.url));
const outDir = mkdtempSync(join(tmpdir(), 'svc-kit-vectors-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('generate.mjs', () => {
  // Run the script the way a maintainer does (a separate node process), into a scratch folder.
  execFileSync(process.execPath, [join(here, 'generate.mjs'), outDir], { stdio: 'pipe' });
  const generated = readdirSync(outDir).sort();

  it('writes exactly the two vector files', () => {
    expect(generated).toEqual(['payload-cases.json', 'signature-cases.json']);
  });

  it.each(generated)('%s: the committed file is byte-identical to a fresh generation', (name) => {
    const fresh = readFileSync(join(outDir, name));
    const committed = readFileSync(join(here, name));
    // Compare as text first for a readable diff, then as bytes for the real guarantee.
    expect(committed.toString('utf8')).toBe(fresh.toString('utf8'));
    expect(committed.equals(fresh)).toBe(true);
  });
});
