import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { VerificationError, verifySignature } from '../../recipes/verify.mjs';
import { docsDir } from '../support/paths';
import { vectorCases } from './vectors';

const run = promisify(execFile);
const recipesDir = path.join(docsDir, 'recipes');
const harnessDir = path.join(docsDir, 'test', 'recipes', 'harness');
const cases = vectorCases();
const expected = Object.fromEntries(cases.map((vector) => [vector.name, vector.expected]));
const workDirs: string[] = [];

afterAll(() => {
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

function workDir(label: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `svc-docs-recipe-${label}-`));
  workDirs.push(dir);
  return dir;
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** One line per case, tab-separated, every string base64: read by the harness of each language. */
function protocol(): string {
  return cases
    .map((vector) =>
      [
        vector.name,
        String(vector.nowSeconds),
        String(vector.toleranceSeconds),
        vector.header === null ? '-' : base64(vector.header),
        vector.body.toString('base64'),
        ...vector.secrets.map(base64),
      ].join('\t'),
    )
    .join('\n')
    .concat('\n');
}

/** Runs one process for every case and reads back `name<TAB>outcome` lines. */
async function outcomes(command: string, args: string[], cwd: string): Promise<Record<string, string>> {
  const child = run(command, args, { cwd, maxBuffer: 16 * 1024 * 1024, env: { ...process.env } });
  child.child.stdin?.end(protocol());
  const { stdout } = await child;
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t') as [string, string]),
  );
}

describe('the verification recipes agree with every case of test-vectors/', () => {
  it('covers the rotation, both tolerance edges and every refusal the recipes can give', () => {
    // A guard on the vectors themselves: if these disappear, the recipes are no longer tested on them.
    const names = cases.map((vector) => vector.name);
    expect(names).toEqual(
      expect.arrayContaining(['rotation-receiver-holds-both', 'rotation-receiver-holds-old']),
    );
    expect(new Set(Object.values(expected))).toEqual(
      new Set([
        'valid',
        'missing_header',
        'malformed_header',
        'no_matching_signature',
        'timestamp_too_old',
        'timestamp_too_new',
        'invalid_secret',
        'invalid_options',
      ]),
    );
    expect(cases.length).toBeGreaterThan(100);
  });

  it('Node.js (node:crypto, no SDK)', () => {
    const actual = Object.fromEntries(
      cases.map((vector) => {
        try {
          verifySignature({
            header: vector.header ?? undefined,
            body: vector.body,
            secrets: vector.secrets,
            toleranceSeconds: vector.toleranceSeconds,
            nowSeconds: vector.nowSeconds,
          });
          return [vector.name, 'valid'];
        } catch (error) {
          if (!(error instanceof VerificationError)) throw error;
          return [vector.name, error.reason];
        }
      }),
    );
    expect(actual).toEqual(expected);
  });

  it('Python', async () => {
    const actual = await outcomes(
      'python3',
      [path.join(harnessDir, 'run_vectors.py'), recipesDir],
      harnessDir,
    );
    expect(actual).toEqual(expected);
  });

  it('Ruby', async () => {
    const actual = await outcomes('ruby', [path.join(harnessDir, 'run_vectors.rb'), recipesDir], harnessDir);
    expect(actual).toEqual(expected);
  });

  it('PHP', async () => {
    const actual = await outcomes('php', [path.join(harnessDir, 'run_vectors.php'), recipesDir], harnessDir);
    expect(actual).toEqual(expected);
  });

  it('Go', async () => {
    // The recipe is a package of its own; the harness imports it from a throwaway module.
    const dir = workDir('go');
    mkdirSync(path.join(dir, 'webhookverify'));
    copyFileSync(path.join(recipesDir, 'verify.go'), path.join(dir, 'webhookverify', 'verify.go'));
    copyFileSync(path.join(harnessDir, 'main.go'), path.join(dir, 'main.go'));
    writeFileSync(path.join(dir, 'go.mod'), 'module vectors\n\ngo 1.19\n');
    const actual = await outcomes('go', ['run', '.'], dir);
    expect(actual).toEqual(expected);
  });

  it('Java', async () => {
    const dir = workDir('java');
    await run('javac', [
      '-d',
      dir,
      path.join(recipesDir, 'Verify.java'),
      path.join(harnessDir, 'VerifyVectors.java'),
    ]);
    const actual = await outcomes('java', ['-cp', dir, 'VerifyVectors'], dir);
    expect(actual).toEqual(expected);
  });
});
