import { createEmptyPostgres, POSTGRES_ADMIN_URL } from '../../test/support/backends.js';

export type BenchBackend = 'pglite' | 'postgres';
export type BenchEnv = Record<string, string | undefined>;

/**
 * Runs `fn` with the environment that points a service at the backend: PGlite (no DATABASE_URL; the
 * service makes its own data dir) or a throwaway PostgreSQL database, dropped afterwards. Answers
 * undefined, and says why, when no PostgreSQL server answers.
 */
export async function onBackend<T>(
  backend: BenchBackend,
  fn: (env: Record<string, string | undefined>) => Promise<T>,
): Promise<T | undefined> {
  if (backend === 'pglite') return fn({ DATABASE_URL: '' });
  let database: Awaited<ReturnType<typeof createEmptyPostgres>>;
  try {
    database = await createEmptyPostgres();
  } catch (error) {
    console.log(
      `\nPostgreSQL run skipped: no server at ${new URL(POSTGRES_ADMIN_URL).host} (${(error as Error).message}).` +
        '\nSet SVC_TEST_POSTGRES_URL to the admin URL of a server to include it.',
    );
    return undefined;
  }
  try {
    return await fn({ DATABASE_URL: database.url });
  } finally {
    await database.drop();
  }
}
