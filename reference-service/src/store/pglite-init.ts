import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A failure of the embedded database's thread itself (not of a statement). */
export class EmbeddedDatabaseError extends Error {
  override readonly name = 'EmbeddedDatabaseError';
}

/**
 * Creates a new data dir in a child process that ends once done. PGlite creates one by running initdb, a
 * second WebAssembly program; run in this process, even on a thread that then ended, what it leaves behind
 * (compiled code, allocator pages) stayed resident for the process's whole life (bench/RESULTS.md, issue 43).
 * A process gives all of it back.
 */
export async function initialiseDataDir(dataDir: string): Promise<void> {
  const script = fileURLToPath(new URL('./pglite-thread.js', import.meta.url));
  const child = spawn(process.execPath, [script, '--init-only', dataDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2_000);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0)
    throw new EmbeddedDatabaseError(`creating the data dir failed: ${stderr.trim() || `exit ${code}`}`);
}
