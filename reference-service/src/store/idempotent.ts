import { ServiceError } from '../domain/errors.js';
import { IDEMPOTENCY_WINDOW_MS } from '../domain/idempotency.js';
import type { Db, Queryable } from './db.js';
import { claimIdempotencyKey, getIdempotencyRecord, storeIdempotentAnswer } from './queries/idempotency.js';

export interface Answer {
  status: number;
  body: unknown;
}

export interface IdempotentCall {
  workspaceId: string;
  key: string;
  fingerprint: string;
  now: number;
}

/**
 * Runs an operation once per key. The operation and the stored answer share one transaction with the key
 * claim, so either both are committed or neither is: a refusal or crash inside `run` rolls back and frees
 * the key for a retry. A concurrent repeat waits on the key's row and then replays the committed answer.
 */
export async function runIdempotent(
  db: Db,
  call: IdempotentCall,
  run: (tx: Queryable) => Promise<Answer>,
): Promise<Answer & { replayed: boolean }> {
  return db.transaction(async (tx) => {
    const claimed = await claimIdempotencyKey(
      tx,
      { workspace_id: call.workspaceId, key: call.key, fingerprint: call.fingerprint, created_at: call.now },
      call.now - IDEMPOTENCY_WINDOW_MS,
    );
    if (claimed) {
      const answer = await run(tx);
      await storeIdempotentAnswer(tx, call.workspaceId, call.key, answer.status, answer.body);
      return { ...answer, replayed: false };
    }
    const record = await getIdempotencyRecord(tx, call.workspaceId, call.key);
    if (!record || record.response_status === null) {
      // Cannot happen with the claim above (answers are stored in the claiming transaction); refuse loudly.
      throw new Error('idempotency record without an answer');
    }
    if (record.fingerprint !== call.fingerprint) {
      throw new ServiceError(
        'idempotency_mismatch',
        'this Idempotency-Key was already used with different arguments in the last 24 hours',
      );
    }
    return {
      status: record.response_status,
      body: record.response_body === null ? undefined : JSON.parse(record.response_body),
      replayed: true,
    };
  });
}
