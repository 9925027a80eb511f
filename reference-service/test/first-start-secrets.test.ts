import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstStartSecretsFile, writeFirstStartSecrets } from '../src/first-start-secrets.js';

describe('where the first start’s secrets go', () => {
  it('to the terminal when there is one, else to a private file; the setting decides first', async () => {
    const pglite = (firstStartSecrets: 'stdout' | 'file' | undefined) => ({
      dataDir: '/data',
      databaseUrl: undefined,
      firstStartSecrets,
    });
    expect(firstStartSecretsFile(pglite(undefined), true)).toBeUndefined();
    expect(firstStartSecretsFile(pglite(undefined), false)).toBe('/data/first-start.txt');
    expect(firstStartSecretsFile(pglite('stdout'), false)).toBeUndefined();
    expect(firstStartSecretsFile(pglite('file'), true)).toBe('/data/first-start.txt');

    const dir = await mkdtemp(join(tmpdir(), 'svc-first-'));
    const path = join(dir, 'first-start.txt');
    await writeFile(path, 'old', { mode: 0o644 });
    writeFirstStartSecrets(path, dir, ['    password:     secret']);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await readFile(path, 'utf8')).toBe('    password:     secret\n');
  });

  it('to a file of its own per database, named without the credentials of its URL', () => {
    const on = (databaseUrl: string) =>
      firstStartSecretsFile({ dataDir: '/data', databaseUrl, firstStartSecrets: 'file' });
    expect(on('postgres://svc:hunter2@db.internal:6543/svc_main')).toBe(
      '/data/first-start-postgres-svc_main@db.internal-6543.txt',
    );
    expect(on('postgres://postgres@127.0.0.1/other')).toBe(
      '/data/first-start-postgres-other@127.0.0.1-5432.txt',
    );
    expect(on('postgres://x@h/we%2Fird%20name')).toBe('/data/first-start-postgres-we_ird_name@h-5432.txt');
  });
});
