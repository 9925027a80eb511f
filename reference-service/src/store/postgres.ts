import pg from 'pg';
import { columnTypes } from './column-types.js';
import type { Db, Queryable } from './db.js';

/** How many distinct statements are prepared by name (per connection); any beyond are parsed each time. */
const MAX_PREPARED = 500;
/** Statement text → its name ('' once found stale: run unnamed from then on). */
const preparedNames = new Map<string, string>();
/** "cached plan must not change result type" */
const STALE_PREPARED_STATEMENT = '0A000';

/**
 * A name for the statement, so that each connection parses and plans it once and then only binds and
 * runs it (the planning of a short statement cost the server more than running it). The service's
 * statements are a fixed set of texts; texts that vary with their input (one VALUES row per event of a
 * batch) are few, and past MAX_PREPARED statements run unnamed, so what each connection keeps is bounded.
 */
function statementName(sql: string): string | undefined {
  const known = preparedNames.get(sql);
  if (known !== undefined || preparedNames.size >= MAX_PREPARED) return known || undefined;
  const name = `svc_${preparedNames.size}`;
  preparedNames.set(sql, name);
  return name;
}

/** PostgreSQL through a `pg` pool. BIGINT columns (millisecond timestamps) are read as numbers. */
export async function openPostgres(connectionString: string): Promise<Db> {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    types: columnTypes,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const asQueryable = (target: Pick<pg.Pool, 'query'>): Queryable => ({
    async query<Row extends object>(sql: string, params: readonly unknown[] = []) {
      const name = statementName(sql);
      if (name === undefined) return (await target.query<Row & pg.QueryResultRow>(sql, [...params])).rows;
      try {
        return (await target.query<Row & pg.QueryResultRow>({ name, text: sql, values: [...params] })).rows;
      } catch (error) {
        // Another instance changed a table this statement reads all columns of (a migration during a
        // rolling upgrade): the prepared form is stale on this connection, so the text runs unnamed.
        if ((error as { code?: string }).code !== STALE_PREPARED_STATEMENT) throw error;
        preparedNames.set(sql, '');
        return (await target.query<Row & pg.QueryResultRow>(sql, [...params])).rows;
      }
    },
    async exec(sql: string) {
      // Without parameters pg uses the simple protocol, which accepts several statements.
      await target.query(sql);
    },
  });
  // Fail at start-up rather than on the first request when the database is unreachable.
  await pool.query('SELECT 1');
  return {
    kind: 'postgres',
    ...asQueryable(pool),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(asQueryable(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async withAdvisoryLock(key, fn) {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [key]);
        try {
          return await fn(asQueryable(client));
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [key]);
        }
      } finally {
        client.release();
      }
    },
    listen: (channel, onNotify) => listenOnOwnConnection(connectionString, channel, onNotify),
    close: () => pool.end(),
    pressure: () => ({ waiting: pool.waitingCount, busy: pool.totalCount - pool.idleCount }),
  };
}

/**
 * LISTEN needs a connection of its own that stays open (a pooled one would be handed to other queries).
 * A dropped connection is re-opened after a pause; meanwhile the listener's polling covers the gap.
 */
async function listenOnOwnConnection(
  connectionString: string,
  channel: string,
  onNotify: (payload: string) => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const reconnectLater = (): void => {
    if (stopped) return;
    retry = setTimeout(() => void connect().catch(reconnectLater), 1000);
    retry.unref();
  };
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    next.on('error', () => {
      if (stopped || client !== next) return;
      client = undefined;
      next.end().catch(() => {});
      reconnectLater();
    });
    await next.connect();
    // The channel name is one of ours, never input; quoting keeps it an identifier all the same.
    await next.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
    if (stopped) {
      await next.end();
      return;
    }
    client = next;
    // A notification sent while reconnecting was missed: wake the listener once to catch up.
    onNotify('');
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const current = client;
    client = undefined;
    await current?.end();
  };
}
