import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstStartSecretsFile, writeFirstStartSecrets } from '../src/first-start-secrets.js';

describe('where the first start’s secrets go', () => {
  it('to the terminal when there is one, else to a private file; the setting decides first', async () => {
    expect(firstStartSecretsFile('/data', undefined, true)).toBeUndefined();
    expect(firstStartSecretsFile('/data', undefined, false)).toBe('/data/first-start.txt');
    expect(firstStartSecretsFile('/data', 'stdout', false)).toBeUndefined();
    expect(firstStartSecretsFile('/data', 'file', true)).toBe('/data/first-start.txt');

    const dir = await mkdtemp(join(tmpdir(), 'svc-first-'));
    const path = join(dir, 'first-start.txt');
    await writeFile(path, 'old', { mode: 0o644 });
    writeFirstStartSecrets(path, dir, ['    password:     secret']);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await readFile(path, 'utf8')).toBe('    password:     secret\n');
  });
});
