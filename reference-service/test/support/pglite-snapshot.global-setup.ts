import { ensureDataDirTemplate, ensurePgliteSnapshot } from './pglite-snapshot.js';

/** Once per run, before any test file: the migrated snapshot every in-memory store starts
 * from, and the initdb'd data dir the service processes' data dirs are copied from. */
export default async function setup(): Promise<void> {
  const started = Date.now();
  const [file] = await Promise.all([ensurePgliteSnapshot(), ensureDataDirTemplate()]);
  if (Date.now() - started > 1_000)
    console.info(`PGlite snapshot made in ${Date.now() - started} ms (${file})`);
}
