import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('./src/store/', import.meta.url));

/**
 * Files the built service reads next to its bundle at run time, because they are not modules of the
 * bundle: the SQL migrations (src/store/migrate.ts) and the embedded database's thread entry
 * (src/store/pglite.ts). Every build of the service (npm run build, the bench, the spawned-process tests)
 * copies them with this one function.
 */
export function copyRuntimeFiles(outDir: string): void {
  cpSync(join(SOURCE, 'migrations'), join(outDir, 'migrations'), { recursive: true });
  cpSync(join(SOURCE, 'pglite-thread.js'), join(outDir, 'pglite-thread.js'));
}
