import { setTimeout as sleep } from 'node:timers/promises';
import { isRememberedRefusal, statusOfErrorCode } from '@svc-kit/contract';
import { ServiceError } from '../domain/errors.js';
import type { Db, Queryable } from './db.js';
import {
  claimIdempotencyKey,
  dropUnansweredClaim,
  getIdempotencyRecord,
  type IdempotencyRow,
  type IdempotentCall,
  storeIdempotentAnswer,
} from './queries/idempotency.js';

/** A refusal that is the replay of a key's first answer; the HTTP layer marks it `Idempotent-Replayed`. */
export class ReplayedRefusal extends ServiceError {
  readonly replayed = true;
}

/** Whether an operation's refusal is its first answer, kept for the key (the contract's rule). */
function isRememberedError(error: unknown): error is ServiceError {
  return (
    error instanceof ServiceError &&
    !(error instanceof ReplayedRefusal) &&
    isRememberedRefusal(statusOfErrorCode(error.code))
  );
}

/** The stored form of a remembered refusal: code and message; the request id is the repeat's own. */
function refusalAnswer(error: ServiceError): Answer {
  return {
    status: statusOfErrorCode(error.code),
    body: { error: { code: error.code, message: error.message } },
  };
}

/**
 * The key's first answer, replayed: a stored refusal is thrown again, a success returned (`undefined` while
 * there is none). A repeat with other arguments is refused.
 */
function replayOf(record: IdempotencyRow, call: IdempotentCall): (Answer & { replayed: true }) | undefined {
  if (record.fingerprint !== call.fingerprint) {
    throw new ServiceError(
      'idempotency_mismatch',
      'this Idempotency-Key was already used with different arguments in the last 24 hours',
    );
  }
  if (record.response_status === null) return undefined;
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

/**
 * Spends what keeping a new key costs its workspace, on the claim's handle; throws the refusal (a 429, which
 * is never a key's answer) when it may not be kept.
 */
export type KeepKey = (handle: Queryable) => Promise<void>;

const keepAny: KeepKey = async () => {};

/** Whether a key may be kept: false when `keep` refuses for the budget, which the caller then answers alone. */
async function mayKeep(keep: KeepKey, handle: Queryable): Promise<boolean> {
  try {
    await keep(handle);
    return true;
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'rate_limited') return false;
    throw error;
  }
}

/**
 * How long a repeat waits for a concurrent first call (which may be waiting on a peer) to answer, and how
 * often it looks: the pause doubles from `pollMs` up to `maxPollMs`, so that repeats of a call waiting on a
 * silent peer cost the database a few dozen statements each over the wait, not one pair every 50 ms.
 */
const WAIT_FOR_FIRST: Patience = { waitMs: 30_000, pollMs: 50, maxPollMs: 1_000 };

export interface Patience {
  waitMs: number;
  pollMs: number;
  maxPollMs: number;
}

/**
 * Runs an operation once per key. The operation and its stored answer share one transaction with the key's
 * claim: a failure inside `run` rolls back and frees the key for a retry. A final refusal (400, 403, 404)
 * rolls back what the operation did, then is stored as the key's first answer in a transaction of its own. A
 * concurrent repeat waits on the key's row, then replays the committed answer.
 */
export async function runIdempotent(
  db: Db,
  call: IdempotentCall,
  run: (tx: Queryable) => Promise<Answer>,
  keep: KeepKey = keepAny,
): Promise<Answer & { replayed: boolean }> {
  try {
    return await db.transaction(async (tx) => {
      if (await claimIdempotencyKey(tx, call)) {
        await keep(tx);
        let answer: Answer;
        try {
          answer = await run(tx);
        } catch (error) {
          throw isRememberedError(error) ? new RefusedRun(error) : error;
        }
        await storeIdempotentAnswer(tx, call, answer);
        return { ...answer, replayed: false };
      }
      const record = await getIdempotencyRecord(tx, call);
      if (!record || record.response_status === null) {
        // Cannot happen with the claim above (answers are stored in the claiming transaction); refuse loudly.
        throw new Error('idempotency record without an answer');
      }
      return replayOf(record, call)!;
    });
  } catch (error) {
    if (!(error instanceof RefusedRun)) throw error;
    // The operation ran to its refusal: remembering it waits for the database rather than giving up.
    await settleOutcome(db, async (tx) => {
      // The budget spent with the claim went with its rollback. Past it, the refusal is answered, not kept
      // (a claim left without its answer would hold the key). Someone else's answer got there first: theirs
      // is the key's first answer, ours is still this caller's.
      if ((await mayKeep(keep, tx)) && (await claimIdempotencyKey(tx, call)))
        await storeIdempotentAnswer(tx, call, refusalAnswer(error.refusal));
    });
    throw error.refusal;
  }
}

/**
 * Once an operation has run, its outcome is written however long that takes: a claim left without its
 * answer would hold the key for ABANDONED_CLAIM_MS (queries/idempotency.ts), then let the operation run
 * again. So no wait limit, and an operator's lock and statement timeouts are off for the write.
 */
function settleOutcome(db: Db, write: (tx: Queryable) => Promise<unknown>): Promise<void> {
  return db.withoutWaitLimit().transaction(async (tx) => {
    await tx.exec('SET LOCAL lock_timeout = 0; SET LOCAL statement_timeout = 0');
    await write(tx);
  });
}

/**
 * The same promises as `runIdempotent` (same table, window, 422 and replay) for an operation that opens its
 * own transactions (mode `own`, http/operations.ts), in three short steps: the claim is committed, the
 * operation runs with its own transactions and its peer call, then the answer is stored. A repeat arriving
 * meanwhile waits for that answer on the injected `clock`, and never for longer than the wait holds in
 * pauses slept: it sleeps on real timers, and a clock that stands still (a test's) would keep it polling for
 * ever. A final refusal is stored as the first answer; any other failure drops the claim, freeing the key as
 * the one-transaction form does.
 */
export async function runIdempotentInSteps(
  db: Db,
  call: IdempotentCall,
  run: () => Promise<Answer>,
  clock: () => number,
  keep: KeepKey = keepAny,
  patience = WAIT_FOR_FIRST,
): Promise<Answer & { replayed: boolean }> {
  const deadline = clock() + patience.waitMs;
  let pause = patience.pollMs;
  for (let slept = 0; ; slept += pause, pause = Math.min(pause * 2, patience.maxPollMs)) {
    if (await claimIdempotencyKey(db, call)) {
      let answer: Answer;
      let refusal: ServiceError | undefined;
      try {
        await keep(db);
        answer = await run();
      } catch (error) {
        if (!isRememberedError(error)) {
          await settleOutcome(db, (tx) => dropUnansweredClaim(tx, call));
          throw error;
        }
        // A final refusal is the key's first answer (the contract's rule): kept like a success.
        refusal = error;
        answer = refusalAnswer(error);
      }
      await settleOutcome(db, (tx) => storeIdempotentAnswer(tx, call, answer));
      if (refusal) throw refusal;
      return { ...answer, replayed: false };
    }
    const record = await getIdempotencyRecord(db, call);
    const replay = record && replayOf(record, call);
    if (replay) return replay;
    // The first call is still running (or just gave the key up): wait and look again.
    if (clock() > deadline || slept >= patience.waitMs) {
      throw new ServiceError(
        'service_unavailable',
        'a call with this Idempotency-Key is still in progress; retry it later',
      );
    }
    await sleep(pause);
  }
}
