import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/store/db.js';
import { openMemoryStore } from '../support/pglite-snapshot.js';

/** The committed picture of what the migrations add up to, for a reader who would rather not replay them. */
const SCHEMA_FILE = new URL('../../src/store/current-schema.sql', import.meta.url);

/**
 * The schema of a freshly migrated database as text, each kind of object sorted by name: tables with
 * their columns in order, constraints, indexes, functions and triggers, as PostgreSQL itself writes them.
 */
async function schemaText(db: Queryable): Promise<string> {
  const lines = (rows: { line: string }[]) => rows.map((row) => row.line);
  const columns = await db.query<{ table_name: string; line: string }>(
    `SELECT c.table_name,
            '  ' || c.column_name || ' ' || format_type(a.atttypid, a.atttypmod)
              || CASE WHEN c.is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END
              || COALESCE(' DEFAULT ' || c.column_default, '') AS line
       FROM information_schema.columns c
       JOIN pg_attribute a ON a.attrelid = ('public.' || quote_ident(c.table_name))::regclass
                          AND a.attname = c.column_name
      WHERE c.table_schema = 'public'
      ORDER BY c.table_name, c.ordinal_position`,
  );
  const tables = new Map<string, string[]>();
  for (const column of columns)
    tables.set(column.table_name, [...(tables.get(column.table_name) ?? []), column.line]);
  const constraints = await db.query<{ line: string }>(
    `SELECT conrelid::regclass::text || ' ' || conname || ': ' || pg_get_constraintdef(oid) AS line
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY conrelid::regclass::text, conname`,
  );
  const indexes = await db.query<{ line: string }>(
    `SELECT indexdef || ';' AS line FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname`,
  );
  const functions = await db.query<{ line: string }>(
    `SELECT pg_get_functiondef(p.oid) || ';' AS line FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace ORDER BY p.proname, p.oid::regprocedure::text`,
  );
  const triggers = await db.query<{ line: string }>(
    `SELECT pg_get_triggerdef(oid) || ';' AS line FROM pg_trigger
      WHERE NOT tgisinternal ORDER BY tgrelid::regclass::text, tgname`,
  );
  return [
    '-- What the migrations in migrations/ add up to, written by test/store/current-schema.test.ts',
    '-- (UPDATE_SCHEMA=1 rewrites it). Read it; never apply it: the migrations are the schema.',
    '',
    ...[...tables].map(([name, cols]) => `TABLE ${name} (\n${cols.join(',\n')}\n);\n`),
    '-- Constraints',
    ...lines(constraints),
    '',
    '-- Indexes',
    ...lines(indexes),
    '',
    '-- Functions',
    ...lines(functions),
    '',
    '-- Triggers',
    ...lines(triggers),
    '',
  ].join('\n');
}

describe('the current schema file', () => {
  it('is what the migrations add up to', async () => {
    const store = await openMemoryStore();
    try {
      const text = await schemaText(store.db);
      if (process.env.UPDATE_SCHEMA === '1') writeFileSync(SCHEMA_FILE, text);
      expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(text);
    } finally {
      await store.close();
    }
  });
});
