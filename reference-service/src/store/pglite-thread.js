// @ts-check
/**
 * The embedded database's own thread (see pglite.ts). PGlite runs PostgreSQL compiled to WebAssembly
 * synchronously: on the service's event loop every statement would stall the HTTP work, so it runs here.
 * This thread only runs bytes: each request is a batch of PostgreSQL wire-protocol messages, encoded on
 * the service's thread (pglite-wire.ts), and the answer is the database's reply, handed back without
 * being read. Requests are run one at a time in the order they arrive, so the service's thread can send
 * the next before the last is answered. Plain JavaScript, because this file is started as it is, from
 * src/ under the tests and from dist/ in the built service.
 *
 * Requests: { id, bytes } or { id, close: true }. Answers: { id, bytes } or { id, error }. The first
 * message is { ready: true } or { failed: error }.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

/** @param {unknown} error */
function serialise(error) {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: 'Error', message: String(error) };
}

/** @type {PGlite} */
let pg;
try {
  pg = await PGlite.create(workerData.dataDir ?? 'memory://');
} catch (error) {
  port.postMessage({ failed: serialise(error) });
  process.exit(1);
}

port.on('message', (/** @type {{ id: number, bytes?: Uint8Array, close?: true }} */ message) => {
  if (message.close) {
    pg.close().then(
      () => port.postMessage({ id: message.id }),
      (error) => port.postMessage({ id: message.id, error: serialise(error) }),
    );
    return;
  }
  try {
    // Both file systems used here (memory, and Node's for a data dir) write through: nothing to sync after.
    const answer = pg.execProtocolRawSync(/** @type {Uint8Array} */ (message.bytes));
    port.postMessage({ id: message.id, bytes: answer }, [/** @type {ArrayBuffer} */ (answer.buffer)]);
  } catch (error) {
    port.postMessage({ id: message.id, error: serialise(error) });
  }
});
port.postMessage({ ready: true });
