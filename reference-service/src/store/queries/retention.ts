import { IDEMPOTENCY_WINDOW_MS } from '@svc-kit/contract';
import type { Queryable } from '../db.js';
import { KNOWN_ADDRESS_MS } from './sign-in-addresses.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A kind of row that goes once old enough: `condition` is true of a row to remove, `$3` being the time
 * `cutoff` gives (`keepMs`: how long events and delivery records are kept, the log of a removed endpoint
 * included). The tables are named here, never by input.
 */
export interface Prunable {
  table: string;
  condition: string;
  cutoff(now: number, keepMs: number): number;
}

/**
 * A token bucket idle this long is full again, as if it had never been spent: its row says nothing a
 * missing row does not (every bucket of the service refills within a day).
 */
const IDLE_BUCKET_MS = 7 * DAY_MS;

/** Every kind of row retention removes, in this order (deliveries before the events they carry). */
export const PRUNABLE: readonly Prunable[] = [
  // A row being sent is the worker's: it goes at a later pass, once its outcome is logged.
  {
    table: 'webhook_deliveries',
    condition: "created_at < $3 AND status <> 'sending'",
    cutoff: (now, keepMs) => now - keepMs,
  },
  // A day longer than their deliveries: an event is never gone while a delivery of it can still be claimed.
  { table: 'events', condition: 'created_at < $3', cutoff: (now, keepMs) => now - keepMs - DAY_MS },
  // A removed endpoint stays while any of its log does, so that the log stays readable (spec 2.3).
  {
    table: 'webhook_endpoints',
    condition: `deleted_at < $3 AND NOT EXISTS
      (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = webhook_endpoints.id)`,
    cutoff: (now, keepMs) => now - keepMs,
  },
  {
    table: 'idempotency_keys',
    condition: 'created_at < $3',
    cutoff: (now) => now - IDEMPOTENCY_WINDOW_MS,
  },
  { table: 'sessions', condition: 'expires_at < $3', cutoff: (now) => now },
  { table: 'peer_nonces', condition: 'expires_at < $3', cutoff: (now) => now },
  { table: 'outbound_budgets', condition: 'updated_at < $3', cutoff: (now) => now - IDLE_BUCKET_MS },
  {
    table: 'sign_in_known_addresses',
    condition: 'last_seen_at < $3',
    cutoff: (now) => now - KNOWN_ADDRESS_MS,
  },
];

/** The table's size in pages now (rows added after this are young and wait for the next pass). */
export async function pagesOf(db: Queryable, table: string): Promise<number> {
  const [row] = await db.query<{ pages: number }>(
    `SELECT (pg_relation_size($1::regclass) / current_setting('block_size')::int)::int AS pages`,
    [table],
  );
  return row?.pages ?? 0;
}

/**
 * Removes the rows of pages [from, to) that `kind` says are old, in one short statement whose cost is
 * bounded by the pages it reads, whatever the table's size and with no index on age. Rows another
 * transaction holds (a claim, a write) are skipped, never waited for: they are looked at again next pass.
 */
export async function prunePages(
  db: Queryable,
  kind: Prunable,
  from: number,
  to: number,
  cutoff: number,
): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM ${kind.table} WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM ${kind.table}
          WHERE ctid >= $1::tid AND ctid < $2::tid AND (${kind.condition})
          FOR UPDATE SKIP LOCKED))
       RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [`(${from},0)`, `(${to},0)`, cutoff],
  );
  return row?.n ?? 0;
}
