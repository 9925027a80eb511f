import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError } from '../../domain/errors.js';
import { IDEMPOTENCY_WINDOW_MS } from '../../domain/idempotency.js';
import type { Db } from '../db.js';
import {
  type Answer,
  type IdempotentCall,
  isRememberedError,
  refusalAnswer,
  replayOf,
} from '../idempotent.js';
import { getIdempotencyRecord, storeIdempotentAnswer } from './idempotency.js';

/** A claim without an answer this old belongs to a process that died mid-call; it may be taken over. */
const ABANDONED_CLAIM_MS = 2 * 60 * 1000;
/** How long a repeat waits for a concurrent first call (which may be waiting on a peer) to answer. */
const WAIT_FOR_FIRST_MS = 30_000;
const POLL_MS = 50;

/**
 * `Idempotency-Key` for operations that call a peer (see domain/contacts/calls-peers.ts). Same promises as
 * `runIdempotent` (same table, same window, same 422, same replay), but in three short steps instead of
 * one transaction: the claim is committed first, the operation runs with its own transactions and its peer
 * call, then the answer is stored. A repeat arriving meanwhile waits for that answer. A final refusal is
 * stored as the first answer; any other failure deletes the claim, so the key is free again, as with the
 * one-transaction form.
 */
export async function runIdempotentOutsideTransaction(
  db: Db,
  call: IdempotentCall,
  run: () => Promise<Answer>,
): Promise<Answer & { replayed: boolean }> {
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const claimed = await db.query<{ key: string }>(
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
    if (claimed.length === 1) {
      let answer: Answer;
      try {
        answer = await run();
      } catch (error) {
        if (isRememberedError(error)) {
          // A final refusal is the key's first answer (the contract's rule): kept like a success.
          const refused = refusalAnswer(error);
          await storeIdempotentAnswer(db, call.workspaceId, call.key, refused.status, refused.body);
          throw error;
        }
        await db.query(
          `DELETE FROM idempotency_keys
            WHERE workspace_id = $1 AND key = $2 AND fingerprint = $3 AND created_at = $4
              AND response_status IS NULL`,
          [call.workspaceId, call.key, call.fingerprint, call.now],
        );
        throw error;
      }
      await storeIdempotentAnswer(db, call.workspaceId, call.key, answer.status, answer.body);
      return { ...answer, replayed: false };
    }
    const record = await getIdempotencyRecord(db, call.workspaceId, call.key);
    if (record) {
      if (record.fingerprint !== call.fingerprint) {
        throw new ServiceError(
          'idempotency_mismatch',
          'this Idempotency-Key was already used with different arguments in the last 24 hours',
        );
      }
      if (record.response_status !== null) {
        return replayOf({ ...record, response_status: record.response_status });
      }
    }
    // The first call is still running (or just gave the key up): wait and look again.
    if (Date.now() > deadline) {
      throw new ServiceError(
        'service_unavailable',
        'a call with this Idempotency-Key is still in progress; retry it later',
      );
    }
    await sleep(POLL_MS);
  }
}
