// @ts-check
/**
 * The embedded database's own thread (see pglite.ts). PGlite runs PostgreSQL compiled to WebAssembly
 * synchronously: on the service's event loop every statement would stall the HTTP work, so it runs here.
 * This thread only runs bytes: each request is a batch of PostgreSQL wire-protocol messages, encoded on
 * the service's thread (pglite-wire.ts), and the answer is the database's reply, handed back unread. Requests are run one at a time in the order they arrive, so the service's thread can send
 * the next before the last is answered. Plain JavaScript, because this file is started as it is, from
 * src/ under the tests and from dist/ in the built service.
 *
 * Requests: { id, bytes }, { id, memory: true } or { id, close: true }. Answers: { id, bytes }, { id, memory }
 * or { id, error }. The first
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

/**
 * PostgreSQL's shared buffers, in the WebAssembly memory. PGlite's default is touched at start, so it all
 * stays resident; buffers are filled by writes too. A small setting keeps the process's resident memory
 * well below the default's at start and after a burst, for a somewhat slower burst (bench/RESULTS.md,
 * issue 43). Pages that do not fit are read back through the file system, whose own cache keeps them close.
 */
const SHARED_BUFFERS = '16MB';
const options = { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`] };

const INIT_ONLY = '--init-only';
if (process.argv[2] === INIT_ONLY) {
  // Started as a child process by pglite.ts to create a new data dir (initdb) and end, taking initdb's
  // memory with it.
  const created = await PGlite.create(/** @type {string} */ (process.argv[3]), options);
  await created.close();
  process.exit(0);
}

/** @type {PGlite} */
let pg;
try {
  // A snapshot (a tarball of PGlite's dumpDataDir) spares an in-memory database its initdb, seconds of
  // CPU: the tests start every in-memory store from one migrated snapshot.
  const snapshot = /** @type {Uint8Array<ArrayBuffer> | undefined} */ (workerData.snapshot);
  pg = await PGlite.create(workerData.dataDir ?? 'memory://', {
    ...options,
    ...(snapshot ? { loadDataDir: new Blob([snapshot]) } : {}),
  });
} catch (error) {
  port.postMessage({ failed: serialise(error) });
  process.exit(1);
}

/**
 * One reply in a buffer of its own (so that it can be transferred): PGlite hands it over in pieces, each a
 * view of its WebAssembly memory.
 * @param {Uint8Array[]} pieces
 * @param {number} size
 */
function joined(pieces, size) {
  const reply = new Uint8Array(size);
  let at = 0;
  for (const piece of pieces) {
    reply.set(piece, at);
    at += piece.length;
  }
  return reply;
}

/** @typedef {{ id: number, bytes?: Uint8Array, close?: true, memory?: true }} Request */

let closing = false;
port.on('message', (/** @type {Request} */ message) => {
  if (closing) {
    port.postMessage({ id: message.id, error: { name: 'Error', message: 'the database is closing' } });
    return;
  }
  if (message.memory) {
    // This thread's JavaScript heap and PostgreSQL's WebAssembly memory (the benchmark reports them).
    const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    // @ts-expect-error `mod` is PGlite's Emscripten module, not part of its typed API.
    const wasm = pg.mod?.HEAPU8?.length ?? 0;
    port.postMessage({ id: message.id, memory: { heapUsed, heapTotal, external, arrayBuffers, wasm } });
    return;
  }
  if (message.close) {
    closing = true;
    pg.close().then(
      () => port.postMessage({ id: message.id }),
      (error) => port.postMessage({ id: message.id, error: serialise(error) }),
    );
    return;
  }
  /** @type {Uint8Array[]} */
  const pieces = [];
  let size = 0;
  // The streaming entry point hands the reply over untouched. The plain one (execProtocolRawSync) would
  // also parse every message here and keep it for PGlite's own query API, which this thread never uses.
  // Without a file-system sync (both file systems used here write through), all of the work happens in
  // this call, so requests still run one at a time in the order they arrived.
  pg.execProtocolRawStream(/** @type {Uint8Array} */ (message.bytes), {
    syncToFs: false,
    onRawData: (piece) => {
      pieces.push(piece.slice());
      size += piece.length;
    },
  }).then(
    () => {
      const reply = joined(pieces, size);
      port.postMessage({ id: message.id, bytes: reply }, [reply.buffer]);
    },
    (error) => port.postMessage({ id: message.id, error: serialise(error) }),
  );
});
port.postMessage({ ready: true });
