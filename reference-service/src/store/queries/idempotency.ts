import { IDEMPOTENCY_WINDOW_MS } from '@svc-kit/contract';
import type { Queryable } from '../db.js';

/** One call of an operation under an `Idempotency-Key`, as the key's row records it. */
export interface IdempotentCall {
  workspaceId: string;
  key: string;
  fingerprint: string;
  now: number;
}

export interface IdempotencyRow {
  workspace_id: string;
  key: string;
  fingerprint: string;
  response_status: number | null;
  /** JSON text of the first answer's body. */
  response_body: string | null;
  created_at: number;
}

/** A claim without an answer this old belongs to a process that died mid-call; it may be taken over. */
const ABANDONED_CLAIM_MS = 2 * 60 * 1000;

/**
 * Claims a key inside the caller's transaction. The insert either creates the row (we own the key until
 * commit), takes over a row older than the window, or does nothing because a live row exists. A concurrent
 * repeat blocks on the primary key until the first transaction ends, so there is no check-then-insert race.
 * A claim committed without an answer (the in-steps form, store/idempotent.ts) older than ABANDONED_CLAIM_MS
 * belongs to a process that died mid-call and is taken over too. Returns true when the key is ours to answer.
 */
export async function claimIdempotencyKey(tx: Queryable, call: IdempotentCall): Promise<boolean> {
  const rows = await tx.query<{ key: string }>(
    `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response_status, response_body, created_at)
     VALUES ($1, $2, $3, NULL, NULL, $4)
     ON CONFLICT (workspace_id, key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, response_status = NULL, response_body = NULL,
           created_at = EXCLUDED.created_at
       WHERE idempotency_keys.created_at < $5
          OR (idempotency_keys.response_status IS NULL AND idempotency_keys.created_at < $6)
     RETURNING key`,
    [
      call.workspaceId,
      call.key,
      call.fingerprint,
      call.now,
      call.now - IDEMPOTENCY_WINDOW_MS,
      call.now - ABANDONED_CLAIM_MS,
    ],
  );
  return rows.length === 1;
}

export async function getIdempotencyRecord(
  tx: Queryable,
  call: IdempotentCall,
): Promise<IdempotencyRow | undefined> {
  const rows = await tx.query<IdempotencyRow>(
    'SELECT * FROM idempotency_keys WHERE workspace_id = $1 AND key = $2',
    [call.workspaceId, call.key],
  );
  return rows[0];
}

export async function storeIdempotentAnswer(
  tx: Queryable,
  call: IdempotentCall,
  answer: { status: number; body: unknown },
): Promise<void> {
  await tx.query(
    'UPDATE idempotency_keys SET response_status = $3, response_body = $4 WHERE workspace_id = $1 AND key = $2',
    [call.workspaceId, call.key, answer.status, JSON.stringify(answer.body ?? null)],
  );
}

/** Frees this call's claim if it was never answered (its call failed), so that the key may be used again. */
export async function dropUnansweredClaim(db: Queryable, call: IdempotentCall): Promise<void> {
  await db.query(
    `DELETE FROM idempotency_keys
      WHERE workspace_id = $1 AND key = $2 AND fingerprint = $3 AND created_at = $4
        AND response_status IS NULL`,
    [call.workspaceId, call.key, call.fingerprint, call.now],
  );
}
