// @ts-check
/**
 * The embedded database's own thread (see pglite.ts). PGlite runs PostgreSQL compiled to WebAssembly
 * synchronously: on the service's event loop every statement would stall the HTTP work, so it runs here
 * and answers messages. Plain JavaScript, because this file is started as it is, from src/ under the tests
 * and from dist/ in the built service.
 *
 * Requests: { id, op, ... } with op `query` | `exec` (optionally inside transaction `tx`), `begin`, `commit`,
 * `rollback`, `listen`, `unlisten`, `close`. Answers: { id, result } or { id, error }. Notifications:
 * { notify: channel }. The first message is { ready: true } or { failed: error }.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

/** Thrown into a transaction's callback to make PGlite roll it back. */
const ROLLBACK = Symbol('rollback');

/** @param {unknown} error */
function serialise(error) {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  // DatabaseError carries the SQLSTATE `code`, `constraint`, `detail` …: copy every plain own field.
  /** @type {Record<string, unknown>} */
  const fields = { name: error.name, message: error.message };
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return fields;
}

/** @type {PGlite} */
let pg;
try {
  pg = await PGlite.create(workerData.dataDir ?? 'memory://', {
    // Millisecond timestamps are BIGINT: read them as numbers (they stay far below 2^53).
    parsers: { [types.INT8]: (/** @type {string} */ value) => Number(value) },
  });
} catch (error) {
  port.postMessage({ failed: serialise(error) });
  process.exit(1);
}

/** @typedef {{ tx: import('@electric-sql/pglite').Transaction, commit: () => void, rollback: () => void, done: Promise<void> }} Open */
/** @type {Map<number, Open>} */
const transactions = new Map();
/** @type {Map<string, () => Promise<void>>} */
const listening = new Map();
let nextTransaction = 1;

/**
 * Opens a transaction and answers once inside it; PGlite holds its transaction lock until `commit` or
 * `rollback` arrives, so statements outside it wait, as other sessions would on PostgreSQL.
 * @returns {Promise<number>}
 */
function begin() {
  return new Promise((opened, failed) => {
    const id = nextTransaction++;
    const done = pg
      .transaction(
        (tx) =>
          new Promise((commit, rollback) => {
            transactions.set(id, {
              tx,
              commit: () => commit(undefined),
              rollback: () => rollback(ROLLBACK),
              done,
            });
            opened(id);
          }),
      )
      .then(
        () => undefined,
        (error) => {
          if (error !== ROLLBACK) throw error;
        },
      )
      .finally(() => transactions.delete(id));
    // BEGIN itself failed: the callback never ran.
    done.catch(failed);
  });
}

/** @param {number | undefined} tx */
function target(tx) {
  if (tx === undefined) return pg;
  const open = transactions.get(tx);
  if (open === undefined) throw new Error('the transaction is no longer open');
  return open.tx;
}

/** @param {any} message */
async function handle(message) {
  switch (message.op) {
    case 'query':
      return (await target(message.tx).query(message.sql, message.params)).rows;
    case 'exec':
      await target(message.tx).exec(message.sql);
      return undefined;
    case 'begin':
      return begin();
    case 'commit':
    case 'rollback': {
      const open = transactions.get(message.tx);
      if (open === undefined) throw new Error('the transaction is no longer open');
      if (message.op === 'commit') open.commit();
      else open.rollback();
      await open.done;
      return undefined;
    }
    case 'listen': {
      if (!listening.has(message.channel)) {
        const stop = await pg.listen(message.channel, () => port.postMessage({ notify: message.channel }));
        listening.set(message.channel, stop);
      }
      return undefined;
    }
    case 'unlisten':
      await listening.get(message.channel)?.();
      listening.delete(message.channel);
      return undefined;
    case 'close':
      await pg.close();
      return undefined;
    default:
      throw new Error(`unknown operation ${String(message.op)}`);
  }
}

port.on('message', (message) => {
  handle(message).then(
    (result) => port.postMessage({ id: message.id, result }),
    (error) => port.postMessage({ id: message.id, error: serialise(error) }),
  );
});
port.postMessage({ ready: true });
