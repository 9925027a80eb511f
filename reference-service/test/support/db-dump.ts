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

/**
 * One query that fingerprints every table (an md5 of its rows in order): cheap enough to take before and
 * after every call of a property-based suite. Equal fingerprints mean equal contents.
 */
/** Rows a refused call may write by design: a whole table, or the rows of a table matching a condition. */
export type Written = string | { table: string; where: string };

export async function databaseFingerprint(db: Queryable, skip: readonly Written[] = []): Promise<string> {
  const tables = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const parts = tables
    .map((row) => row.table_name)
    .filter((table) => !skip.includes(table))
    .map((table) => {
      const quoted = `"${table.replaceAll('"', '""')}"`;
      const partly = skip.find((entry) => typeof entry !== 'string' && entry.table === table);
      const rows =
        typeof partly === 'object' ? `(SELECT * FROM ${quoted} WHERE NOT (${partly.where}))` : quoted;
      return `SELECT '${table}' AS t, count(*) AS n,
                     md5(coalesce(string_agg(row_to_json(x)::text, E'\\n' ORDER BY row_to_json(x)::text), '')) AS h
                FROM ${rows} x`;
    });
  const rows = await db.query<{ t: string; n: string | number; h: string }>(parts.join(' UNION ALL '));
  return rows.map((row) => `${row.t}:${row.n}:${row.h}`).join('\n');
}
