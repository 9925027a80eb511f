import { chmod, mkdir, mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockDataDir } from '../../src/store/data-dir-lock.js';
import { ensurePrivateDir } from '../../src/store/private-dir.js';

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe('the data dir is the service user’s alone', () => {
  it('is created 0700, and an existing open one is closed, its files left as they are', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'svc-private-'));
    const fresh = join(parent, 'fresh', 'data');
    ensurePrivateDir(fresh);
    expect(await modeOf(fresh)).toBe(0o700);

    const open = join(parent, 'open');
    await mkdir(open);
    await chmod(open, 0o755);
    await writeFile(join(open, 'wal'), 'x', { mode: 0o666 });
    await chmod(join(open, 'wal'), 0o666);
    const lock = await lockDataDir(open);
    lock.release();
    expect(await modeOf(open)).toBe(0o700);
    expect(await modeOf(join(open, 'wal'))).toBe(0o666);
  });
});
