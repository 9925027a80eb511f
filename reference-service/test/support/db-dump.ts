import type { Queryable } from '../../src/store/db.js';

/**
 * Every row of every table of the service's schema, as text, in a stable order: two dumps are equal
 * exactly when nothing was written in between. Tables named in `skip` are left out (rows a refused call
 * may legitimately write, such as a rate limiter's counters, are the caller's to name).
 */
export async function dumpDatabase(db: Queryable, skip: readonly string[] = []): Promise<string> {
  const tables = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const parts: string[] = [];
  for (const { table_name: table } of tables) {
    if (skip.includes(table)) continue;
    const rows = await db.query<{ row: string }>(
      `SELECT row_to_json(t)::text AS row FROM "${table.replaceAll('"', '""')}" t ORDER BY 1`,
    );
    parts.push(`## ${table}`, ...rows.map((r) => r.row));
  }
  return parts.join('\n');
}
