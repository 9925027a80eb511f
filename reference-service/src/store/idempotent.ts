import { ERROR_CODES, isRememberedRefusal } from '@svc-kit/contract';
import { ServiceError } from '../domain/errors.js';
import { IDEMPOTENCY_WINDOW_MS } from '../domain/idempotency.js';
import type { Db, Queryable } from './db.js';
import {
  claimIdempotencyKey,
  getIdempotencyRecord,
  type IdempotencyRow,
  storeIdempotentAnswer,
} from './queries/idempotency.js';

/** A refusal that is the replay of a key's first answer; the HTTP layer marks it `Idempotent-Replayed`. */
export class ReplayedRefusal extends ServiceError {
  readonly replayed = true;
}

/** Whether an operation's refusal is its first answer, kept for the key (the contract's rule). */
export function isRememberedError(error: unknown): error is ServiceError {
  return (
    error instanceof ServiceError &&
    !(error instanceof ReplayedRefusal) &&
    isRememberedRefusal(ERROR_CODES[error.code].status)
  );
}

/** The stored form of a remembered refusal: code and message; the request id is the repeat's own. */
export function refusalAnswer(error: ServiceError): Answer {
  return {
    status: ERROR_CODES[error.code].status,
    body: { error: { code: error.code, message: error.message } },
  };
}

/** The first answer of a key, replayed: a stored refusal is thrown again, a success returned. */
export function replayOf(record: IdempotencyRow & { response_status: number }): Answer & { replayed: true } {
  const body = record.response_body === null ? undefined : JSON.parse(record.response_body);
  if (record.response_status >= 400) {
    const { code, message } = (body as { error: { code: ServiceError['code']; message: string } }).error;
    throw new ReplayedRefusal(code, message);
  }
  return { status: record.response_status, body, replayed: true };
}

/** Thrown out of the claiming transaction so it rolls back; the refusal is then stored on its own. */
class RefusedRun extends Error {
  constructor(readonly refusal: ServiceError) {
    super(refusal.message);
  }
}

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
 * claim, so either both are committed or neither is: a failure inside `run` rolls back and frees the key
 * for a retry. A final refusal (400, 403, 404) rolls back what the operation did, then is stored as the
 * key's first answer in a transaction of its own. A concurrent repeat waits on the key's row and then
 * replays the committed answer.
 */
export async function runIdempotent(
  db: Db,
  call: IdempotentCall,
  run: (tx: Queryable) => Promise<Answer>,
): Promise<Answer & { replayed: boolean }> {
  try {
    return await runInOneTransaction(db, call, run);
  } catch (error) {
    if (!(error instanceof RefusedRun)) throw error;
    await db.transaction(async (tx) => {
      const claimed = await claimIdempotencyKey(
        tx,
        {
          workspace_id: call.workspaceId,
          key: call.key,
          fingerprint: call.fingerprint,
          created_at: call.now,
        },
        call.now - IDEMPOTENCY_WINDOW_MS,
      );
      // Someone else's answer got there first: theirs is the key's first answer, ours is still this caller's.
      if (claimed) {
        const { status, body } = refusalAnswer(error.refusal);
        await storeIdempotentAnswer(tx, call.workspaceId, call.key, status, body);
      }
    });
    throw error.refusal;
  }
}

async function runInOneTransaction(
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
      let answer: Answer;
      try {
        answer = await run(tx);
      } catch (error) {
        throw isRememberedError(error) ? new RefusedRun(error) : error;
      }
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
    return replayOf({ ...record, response_status: record.response_status });
  });
}
