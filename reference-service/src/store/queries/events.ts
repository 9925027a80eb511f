import { type CatalogueEvent, eventBody, ID_PREFIXES } from '@svc-kit/contract';
import { RateLimitedError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { Queryable } from '../db.js';
import { TurnBatch } from '../turn-batch.js';
import { backlogRefusals, refuseOverBacklog } from './backlog.js';
import { FAN_OUT, fanOutParams } from './fan-out.js';

/** The channel a committed event's `pg_notify` wakes the delivery workers on (see src/delivery/). */
export const DELIVERY_CHANNEL = 'svc_webhook_deliveries';

/**
 * An event's type with its data (the contract's `CatalogueEvent`): an object literal with a missing, misspelt
 * or extra member, or another type's data, does not compile where the event is made. The SDK's schemas accept
 * more from a later version; the service emits no more (spec 6.4).
 */
export type NewEvent = CatalogueEvent & {
  workspaceId: string;
  identity: string;
  /** The caller's clock (ctx.now()): the same clock stamps endpoints, whose creation the fan-out compares. */
  createdAt: number;
  /** For this endpoint only (the sandbox's test event), under the same rules; absent: every endpoint. */
  endpointId?: string;
};

/**
 * How the writer treats the workspace's delivery backlog (backlog.ts): by default an event of a workspace too
 * far behind its pace is refused (429) before anything is written. `admitted`: the caller refused over the
 * bound already (before a part of the change that cannot be taken back: a call to a party, a code traded
 * for tokens; or over a peer's lower bound, in the same transaction), so its event is recorded whatever the
 * backlog is by now.
 */
export type Backlog = 'refuse' | 'admitted';

/** What the writer answers of each event: its id and the time stamp it was given. */
export type WrittenEvent = { id: string; createdAt: number };

/**
 * Events written by one statement; a larger batch is split. The parameters of a much larger statement
 * outlived two scavenges and left the main heap larger for good (bench/RESULTS.md).
 */
const EVENTS_PER_STATEMENT = 2_000;
/** Data of the events gathered into one statement, in characters of JSON. */
const GATHERED_BYTES = 8 * 1024 * 1024;
/** Gathered statements in flight at once on PostgreSQL: under the pool's 10, so that reads still get a connection. */
const POOLED_WRITERS = 4;

/**
 * Records an event and its outbox rows, inside the transaction of the change that causes it (transactional
 * outbox): both commit together or neither does, and `pg_notify` reaches the workers only at commit.
 *
 * Fan-out happens here, at event time, paced per workspace and per destination host (fan-out.ts): an
 * event made while the workspace's `webhooks_enabled` flag is off has no delivery rows, so it is never
 * sent, even after the flag is turned on, nor stored (no endpoint takes it). `backlog`: see `Backlog`.
 */
export async function insertEvent(
  db: Queryable,
  input: NewEvent,
  backlog: Backlog = 'refuse',
): Promise<WrittenEvent> {
  // The pool itself, not a transaction's handle: its statements each commit alone.
  if ('transaction' in db) {
    const outcome = await gatheredOn(db).add({ input, backlog });
    if (outcome instanceof RateLimitedError) throw outcome;
    return outcome;
  }
  const [event] = await insertEvents(db, [input], backlog);
  return event!;
}

/**
 * Events written outside a transaction (the sandbox's trigger route), one gatherer per pool: concurrent
 * requests' events share a statement and its commit (turn-batch.ts); inside a transaction an event belongs to
 * its change and is never gathered. The backlog is read once per batch, and a workspace past its bound has
 * its own calls refused, never the others'.
 */
type Gathered = { input: NewEvent; backlog: Backlog };
const gatherers = new WeakMap<Queryable, TurnBatch<Gathered, WrittenEvent | RateLimitedError>>();

function gatheredOn(pool: Queryable): TurnBatch<Gathered, WrittenEvent | RateLimitedError> {
  let gatherer = gatherers.get(pool);
  if (gatherer === undefined) {
    gatherer = new TurnBatch((calls) => writeGathered(pool, calls), {
      maxBatch: EVENTS_PER_STATEMENT,
      inFlight: 'kind' in pool && pool.kind === 'postgres' ? POOLED_WRITERS : 1,
      // A request's event may carry up to its body's size (1 MiB): events of large bodies share a
      // statement only up to this many bytes of data, so one statement stays far under the heap's limits.
      maxWeight: GATHERED_BYTES,
      weigh: (call) => JSON.stringify(call.input.data).length,
    });
    gatherers.set(pool, gatherer);
  }
  return gatherer;
}

/** A gathered batch: each call's event, or its workspace's refusal. */
async function writeGathered(
  pool: Queryable,
  calls: readonly Gathered[],
): Promise<(WrittenEvent | RateLimitedError)[]> {
  const checked = calls.filter((call) => call.backlog === 'refuse').map((call) => call.input);
  const refusals = await backlogRefusals(
    pool,
    checked.map((input) => input.workspaceId),
    latest(checked),
  );
  const refusalOf = (call: Gathered) =>
    call.backlog === 'refuse' ? refusals.get(call.input.workspaceId) : undefined;
  const admitted = calls.filter((call) => refusalOf(call) === undefined);
  const written = await writeEvents(
    pool,
    admitted.map((call) => call.input),
  );
  const byCall = new Map(admitted.map((call, i) => [call, written[i]!]));
  return calls.map((call) => byCall.get(call) ?? refusalOf(call)!);
}

function latest(inputs: readonly NewEvent[]): number {
  return inputs.reduce((at, input) => Math.max(at, input.createdAt), 0);
}

/**
 * `insertEvent` for many events, in one statement per 2,000 (events, outbox rows and the wake-up): a burst
 * costs a round trip, not three per event.
 */
export async function insertEvents(
  db: Queryable,
  inputs: readonly NewEvent[],
  backlog: Backlog = 'refuse',
): Promise<WrittenEvent[]> {
  if (backlog === 'refuse') {
    await refuseOverBacklog(
      db,
      inputs.map((input) => input.workspaceId),
      latest(inputs),
    );
  }
  return writeEvents(db, inputs);
}

/** The events, their outbox rows and the wake-up, with no look at the backlog. */
async function writeEvents(db: Queryable, inputs: readonly NewEvent[]): Promise<WrittenEvent[]> {
  const written: WrittenEvent[] = [];
  for (let from = 0; from < inputs.length; from += EVENTS_PER_STATEMENT) {
    const batch = inputs.slice(from, from + EVENTS_PER_STATEMENT);
    const ids = batch.map(() => newId(ID_PREFIXES.event));
    const createdAts = batch.map((input) => input.createdAt);
    await db.query(FAN_OUT, [
      ids,
      batch.map((input) => input.workspaceId),
      batch.map((input) => input.identity),
      batch.map((input) => input.type),
      // Ids and metadata only; the exact bytes are stored so that what is signed never depends on re-encoding.
      batch.map((input, i) =>
        eventBody({
          id: ids[i]!,
          type: input.type,
          created_at: input.createdAt,
          identity: input.identity,
          data: input.data,
        }),
      ),
      createdAts,
      DELIVERY_CHANNEL,
      ...fanOutParams(Math.max(...createdAts)),
      batch.map((input) => input.endpointId ?? null),
    ]);
    for (const [i, id] of ids.entries()) written.push({ id, createdAt: createdAts[i]! });
  }
  return written;
}
