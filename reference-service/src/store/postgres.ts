import pg from 'pg';
import { columnTypes } from './column-types.js';
import { DatabaseUnavailableError, type Db, type Queryable, unavailableIfNoSpace } from './db.js';
import { listenOnOwnConnection } from './postgres-listen.js';

/** How many distinct statements are prepared by name (per connection); any beyond are parsed each time. */
const MAX_PREPARED = 500;
/** Statement text → its name ('' once found stale: run unnamed from then on). */
const preparedNames = new Map<string, string>();
/** "cached plan must not change result type" */
const STALE_PREPARED_STATEMENT = '0A000';

/**
 * A name for the statement, so that each connection parses and plans it once, then only binds and runs it
 * (planning a short statement cost the server more than running it). The service's texts are a fixed set
 * (those built from typed names, such as an integration's changed columns, are one per caller), and past
 * MAX_PREPARED they run unnamed, so what each connection keeps is bounded.
 */
function statementName(sql: string): string | undefined {
  const known = preparedNames.get(sql);
  if (known !== undefined || preparedNames.size >= MAX_PREPARED) return known || undefined;
  const name = `svc_${preparedNames.size}`;
  preparedNames.set(sql, name);
  return name;
}

/**
 * Callers with a wait limit beyond which one more is refused at once: a database that stopped answering
 * would otherwise queue one abandoned wait per request for as long as it stays away.
 */
const MAX_WAITING = 1_000;

/** query_canceled (`statement_timeout`, a cancel) and lock_not_available (`lock_timeout`). */
const CUT_SHORT = new Set(['57014', '55P03']);

/**
 * A request's statement the server cut short was rolled back with its transaction: the database is
 * unavailable (503), not at fault. The service sets neither timeout itself; an operator may, on the role or
 * in DATABASE_URL's `options`. Views without a wait limit (background work) leave the error as it is.
 */
function unavailableIfCutShort(limitMs: number | undefined, error: unknown): unknown {
  // A full disk is the database being unavailable on every view: no write of any caller can succeed.
  const noSpace = unavailableIfNoSpace(error);
  if (limitMs === undefined || noSpace !== error) return noSpace;
  if (!(error instanceof pg.DatabaseError) || !CUT_SHORT.has(error.code ?? '')) return error;
  // The cause's message is appended by the log's serializer: not repeated here.
  return new DatabaseUnavailableError('the database cut a statement short', { cause: error });
}

/** One statement on `client` (or any connection of the pool), prepared by name (see statementName). */
async function runQuery<Row extends object>(
  client: Pick<pg.Pool, 'query'>,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Row[]> {
  const name = statementName(sql);
  if (name === undefined) return (await client.query<Row & pg.QueryResultRow>(sql, [...params])).rows;
  try {
    return (await client.query<Row & pg.QueryResultRow>({ name, text: sql, values: [...params] })).rows;
  } catch (error) {
    // Another instance changed a table this statement reads all columns of (a migration during a
    // rolling upgrade): the prepared form is stale on this connection, so the text runs unnamed.
    if ((error as { code?: string }).code !== STALE_PREPARED_STATEMENT) throw error;
    preparedNames.set(sql, '');
    return (await client.query<Row & pg.QueryResultRow>(sql, [...params])).rows;
  }
}

const onClient = (client: pg.PoolClient): Queryable => ({
  query: (sql, params) => runQuery(client, sql, params),
  // Without parameters pg uses the simple protocol, which accepts several statements.
  exec: async (sql) => {
    await client.query(sql);
  },
});

/**
 * PostgreSQL through a `pg` pool. `onConnectionLost` is told of each connection the server ended or lost (a
 * restart, a terminate, the network): the pool and the LISTEN connections open new ones on their own, but
 * an operator wants to know it happened.
 */
export async function openPostgres(
  connectionString: string,
  options: { onConnectionLost?: ((error: Error) => void) | undefined } = {},
): Promise<Db> {
  const lost = options.onConnectionLost ?? (() => {});
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    types: columnTypes,
  });
  // A client losing its connection must not crash the process; the next query reconnects. Idle, the pool
  // hears its 'error'; checked out (a transaction open when the server restarts), only the client does,
  // and errs twice for one loss (the server's message, then the closed socket): reported once, below.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.once('error', lost).on('error', () => {}));

  /** A pooled connection, within `limitMs` when given; one handed over after the caller gave up goes back. */
  async function acquire(limitMs: number | undefined): Promise<pg.PoolClient> {
    if (limitMs === undefined) return pool.connect();
    if (pool.waitingCount >= MAX_WAITING) {
      throw new DatabaseUnavailableError(`${pool.waitingCount} callers are already waiting for a connection`);
    }
    const pending = pool.connect().catch((error: unknown) => {
      throw new DatabaseUnavailableError('no connection to the database', { cause: error });
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new DatabaseUnavailableError(`no connection to the database within ${limitMs} ms`)),
        limitMs,
      );
    });
    try {
      return await Promise.race([pending, late]);
    } catch (error) {
      pending.then(
        (client) => client.release(),
        () => {},
      );
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Runs `fn` on a pooled connection, then keeps it (with its prepared statements) when the server only
   * refused the statement and the connection is idle, drops it otherwise (broken, a FATAL error such as a
   * shutdown, a script left inside a transaction).
   */
  async function withClient<T>(limitMs: number | undefined, fn: (client: pg.PoolClient) => Promise<T>) {
    const client = await acquire(limitMs);
    try {
      const result = await fn(client);
      client.release();
      return result;
    } catch (error) {
      const refusedOnly =
        error instanceof pg.DatabaseError &&
        error.severity === 'ERROR' &&
        client.getTransactionStatus() === 'I';
      client.release(refusedOnly ? undefined : (error as Error));
      throw unavailableIfCutShort(limitMs, error);
    }
  }

  function view(limitMs: number | undefined): Db {
    return {
      kind: 'postgres',
      // Without a limit, pg's own pool.query: the delivery worker's path stays as it was before the limit.
      query:
        limitMs === undefined
          ? (sql, params) => runQuery(pool, sql, params)
          : (sql, params) => withClient(limitMs, (client) => runQuery(client, sql, params)),
      exec: (sql) => withClient(limitMs, (client) => onClient(client).exec(sql)),
      async transaction(fn) {
        const client = await acquire(limitMs);
        try {
          await client.query('BEGIN');
          const result = await fn(onClient(client));
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw unavailableIfCutShort(limitMs, error);
        } finally {
          client.release();
        }
      },
      async withAdvisoryLock(key, fn) {
        const client = await acquire(limitMs);
        try {
          // The section (the migrations) waits for the lock and runs as long as it takes, whatever
          // timeouts the operator set: an instance starting beside a migrating one must not fail.
          await client.query('SET lock_timeout = 0; SET statement_timeout = 0');
          await client.query('SELECT pg_advisory_lock($1)', [key]);
          return await fn(onClient(client));
        } finally {
          // Closed rather than pooled: its session settings and anything the section left (an aborted
          // transaction) end with it, and so does the lock.
          client.release(true);
        }
      },
      listen: (channel, onNotify) => listenOnOwnConnection(connectionString, channel, onNotify, lost),
      close: () => pool.end(),
      pressure: () => ({ waiting: pool.waitingCount, busy: pool.totalCount - pool.idleCount }),
      withWaitLimit: (ms) => view(ms),
      withoutWaitLimit: () => unbounded,
    };
  }

  const unbounded = view(undefined);
  // Fail at start-up rather than on the first request when the database is unreachable.
  await pool.query('SELECT 1');
  return unbounded;
}
