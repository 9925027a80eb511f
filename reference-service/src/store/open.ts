import { join } from 'node:path';
import { type DataDirLock, lockDataDir } from './data-dir-lock.js';
import type { Db } from './db.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import { asUnreachable } from './unreachable.js';

export interface OpenedStore {
  db: Db;
  close(): Promise<void>;
}

/** Opens the configured backend, applies pending migrations, and hands back one close for both. */
export async function openStore(options: {
  /** PostgreSQL connection string; without it the service runs on PGlite in `dataDir`. */
  databaseUrl?: string | undefined;
  /** Folder for the PGlite files, the data-dir lock and the generated at-rest key. */
  dataDir: string;
  /** PGlite only: keep everything in memory (tests). */
  inMemory?: boolean;
  /** PostgreSQL only: told of each database connection lost (see openPostgres). */
  onConnectionLost?: ((error: Error) => void) | undefined;
  /**
   * With `inMemory`: start from this tarball of a data dir (PGlite's `dumpDataDir`) instead of running
   * initdb; pending migrations still apply.
   */
  snapshot?: Uint8Array | undefined;
}): Promise<OpenedStore> {
  let lock: DataDirLock | undefined;
  let db: Db;
  if (options.databaseUrl) {
    const url = options.databaseUrl;
    // Its first statement is where a wrong address, name or password shows.
    db = await openPostgres(url, { onConnectionLost: options.onConnectionLost }).catch((error: unknown) => {
      throw asUnreachable(error, url) ?? error;
    });
  } else if (options.inMemory) {
    db = await openPglite(undefined, { snapshot: options.snapshot });
  } else {
    lock = await lockDataDir(options.dataDir);
    try {
      db = await openPglite(join(options.dataDir, 'pglite'));
    } catch (error) {
      lock.release();
      throw error;
    }
  }
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    lock?.release();
    throw error;
  }
  return {
    db,
    async close() {
      await db.close();
      lock?.release();
    },
  };
}
