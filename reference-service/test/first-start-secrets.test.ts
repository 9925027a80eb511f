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

  it('to a file of its own per database, named without the credentials of its URL, for any URL pg takes', () => {
    const on = (databaseUrl: string) =>
      firstStartSecretsFile({ dataDir: '/data', databaseUrl, firstStartSecrets: 'file' })!;
    const named = on('postgres://svc:hunter2@db.internal:6543/svc_main');
    expect(named).toMatch(/^\/data\/first-start-postgres-svc_main-[0-9a-f]{8}\.txt$/);
    expect(named).not.toContain('hunter2');
    // The same database whoever connects to it; another host, port, socket or name is another file.
    expect(on('postgres://other:pw@db.internal:6543/svc_main')).toBe(named);
    const others = [
      'postgres://svc@db.internal:6544/svc_main',
      'postgres://svc@db2.internal:6543/svc_main',
      'postgres://svc@db.internal:6543/svc_other',
      'postgres://postgres@/svc_main?host=/var/run/postgresql',
      'postgres://postgres@/svc_main?host=/tmp',
      'postgres://x@[::1]:5433/svc_main',
    ].map(on);
    expect(new Set([named, ...others]).size).toBe(others.length + 1);
    // Forms pg accepts and URL parsing does not, and names that need escaping: a file, never a throw.
    for (const url of ['/var/run/postgresql svc', 'socket:/var/run/postgresql?db=svc', 'postgres://u@h/%zz'])
      expect(on(url)).toMatch(/^\/data\/first-start-postgres-[A-Za-z0-9._-]+-[0-9a-f]{8}\.txt$/);
    // No database named: pg uses the user's name.
    expect(on('postgres://alice@h')).toBe(on('postgres://alice@h/alice'));
  });
});
