import { limitRefusal } from '@svc-kit/contract';
import {
  DELIVERIES_PER_WORKSPACE,
  WORKSPACE_BACKLOG_MS,
  WORKSPACE_PACE_PREFIX,
} from '../../domain/delivery-limits.js';
import { RateLimitedError } from '../../domain/errors.js';
import { SANDBOX_WORKSPACE_ID } from '../../domain/sandbox-workspace.js';
import type { Queryable } from '../db.js';

/** Whose backlog a refusal names, in the words of the other budgets' 429s. */
const BACKLOG = { what: 'webhook deliveries waiting for this workspace’s pace' };

/**
 * Refuses (429, `retry_after` the seconds until it is back under) when a workspace of `workspaceIds` is
 * further behind its delivery pace than `boundMs` (WORKSPACE_BACKLOG_MS, or PEER_BACKLOG_MS for a peer's
 * verb) at `now`: the debt of its bucket, refilled as the fan-out refills it. Called before an event is
 * written, in the transaction of its change, so that a refusal leaves the change unwritten too.
 *
 * A read, not a take: concurrent writers that each find the debt just under the bound all go ahead, so the
 * debt may pass the bound by what the transactions in flight fan out (on PGlite one at a time, on PostgreSQL
 * at most a pool's connections). A workspace whose webhooks are off fans out no rows and is never refused;
 * the seeded sandbox's rows are not paced, and not counted.
 */
export async function refuseOverBacklog(
  db: Queryable,
  workspaceIds: readonly string[],
  now: number,
  boundMs = WORKSPACE_BACKLOG_MS,
): Promise<void> {
  const [refusal] = (await backlogRefusals(db, workspaceIds, now, boundMs)).values();
  if (refusal) throw refusal;
}

/** `refuseOverBacklog`'s refusal of each workspace past the bound, by workspace id (none for the others). */
export async function backlogRefusals(
  db: Queryable,
  workspaceIds: readonly string[],
  now: number,
  boundMs = WORKSPACE_BACKLOG_MS,
): Promise<Map<string, RateLimitedError>> {
  const refusals = new Map<string, RateLimitedError>();
  const paced = [...new Set(workspaceIds)].filter((id) => id !== SANDBOX_WORKSPACE_ID);
  if (paced.length === 0) return refusals;
  const { capacity, perMs } = DELIVERIES_PER_WORKSPACE;
  const rows = await db.query<{ id: string; tokens: number }>(
    `SELECT w.id, LEAST($2::float8, b.tokens + GREATEST(0, $3::bigint - b.updated_at) * $4::float8) AS tokens
       FROM workspaces w JOIN outbound_budgets b ON b.bucket = $5 || w.id
      WHERE w.id = ANY($1::text[]) AND w.webhooks_enabled`,
    [paced, capacity, now, perMs, WORKSPACE_PACE_PREFIX],
  );
  for (const { id, tokens } of rows) {
    const behindMs = -tokens / perMs;
    if (behindMs <= boundMs) continue;
    const refusal = limitRefusal(BACKLOG, behindMs - boundMs);
    refusals.set(id, new RateLimitedError(refusal.retryAfter, refusal.message));
  }
  return refusals;
}
