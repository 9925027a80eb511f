import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';

describe('the embedded database', () => {
  it('keeps 16 MB of shared buffers (PGlite’s 128 MB default stays resident), in memory and in a data dir', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-settings-'));
    try {
      for (const options of [{ inMemory: true, dataDir: '/nonexistent' }, { dataDir }, { dataDir }]) {
        const store = await openStore(options);
        try {
          const [row] = await store.db.query<{ shared_buffers: string }>('SHOW shared_buffers');
          expect(row!.shared_buffers).toBe('16MB');
        } finally {
          await store.close();
        }
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
