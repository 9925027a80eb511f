import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { loadMigrations } from '../../src/store/migrate.js';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { initialiseDataDir } from '../../src/store/pglite-init.js';

const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/svc-test/', import.meta.url));
// The package exports no package.json; its entry point sits in dist/.
const PGLITE_VERSION = (
  JSON.parse(
    readFileSync(
      join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json'),
      'utf8',
    ),
  ) as { version: string }
).version;

/**
 * Where the snapshot of a freshly migrated data dir is kept: named by PGlite's version and the migrations'
 * checksums, so a new migration or a PGlite upgrade makes a new one.
 */
async function snapshotFile(): Promise<string> {
  const key = createHash('sha256').update(PGLITE_VERSION);
  for (const migration of await loadMigrations()) key.update(migration.checksum);
  return join(CACHE_DIR, `pglite-${key.digest('hex').slice(0, 16)}.tar`);
}

/**
 * Once per test run (global set-up): makes the snapshot unless it exists. An in-memory PGlite started
 * from it skips initdb, which took 2.5 to 4.5 s (6 s of CPU) of every in-memory store the suite opens;
 * from the snapshot it takes about one.
 */
export async function ensurePgliteSnapshot(): Promise<string> {
  const file = await snapshotFile();
  if (existsSync(file)) return file;
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-snapshot-'));
  try {
    // The service's own start-up path: initdb, then every migration.
    const store = await openStore({ dataDir });
    await store.close();
    const pg = await PGlite.create(join(dataDir, 'pglite'));
    const dump = await pg.dumpDataDir('none');
    await pg.close();
    await mkdir(CACHE_DIR, { recursive: true });
    const partial = `${file}.${process.pid}`;
    await writeFile(partial, new Uint8Array(await dump.arrayBuffer()));
    await rename(partial, file);
    return file;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

let loaded: Promise<Uint8Array | undefined> | undefined;

/** A migrated in-memory PGlite store: from the run's snapshot when there is one, else through initdb. */
export function openMemoryStore(): Promise<OpenedStore> {
  loaded ??= snapshotFile().then((file) => (existsSync(file) ? readFileSync(file) : undefined));
  return loaded.then((snapshot) => openStore({ inMemory: true, dataDir: '/nonexistent', snapshot }));
}

/** An initdb'd PGlite data dir (nothing migrated), by PGlite's version: what a service's first start makes. */
const TEMPLATE_DIR = join(CACHE_DIR, `pglite-initdb-${PGLITE_VERSION}`);

/** Once per test run (global set-up): makes the template data dir unless it exists. */
export async function ensureDataDirTemplate(): Promise<void> {
  if (existsSync(join(TEMPLATE_DIR, 'PG_VERSION'))) return;
  await mkdir(CACHE_DIR, { recursive: true });
  const partial = `${TEMPLATE_DIR}.${process.pid}`;
  await initialiseDataDir(partial);
  await rm(TEMPLATE_DIR, { recursive: true, force: true });
  await rename(partial, TEMPLATE_DIR);
}

/**
 * A new service data dir whose PGlite files are a copy of the template, so the service skips initdb (seconds
 * of CPU) and still does the rest of a first start: the lock, the at-rest key, migrations, the seed. Tests
 * of the first start itself make theirs with `mkdtemp`.
 */
export async function initialisedDataDir(prefix: string): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  if (existsSync(join(TEMPLATE_DIR, 'PG_VERSION')))
    await cp(TEMPLATE_DIR, join(dataDir, 'pglite'), { recursive: true });
  return dataDir;
}
