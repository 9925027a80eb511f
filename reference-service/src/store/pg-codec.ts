import { type DatabaseError, parse } from 'pg-protocol';

/**
 * The one place the embedded backend (pglite-wire.ts) meets the `pg` driver's codec, through public entry
 * points only: pg-protocol's `serialize` and `parse`, and a copy of the part of pg's parameter conversion the
 * service uses (pg keeps it in a file it does not document). The copy is pinned to the versions below;
 * test/store/pg-codec.test.ts fails when an installed version moves, so that the copy is compared with the
 * new release's before the pin moves.
 */
export const PINNED_VERSIONS = { pg: '8.23.1', 'pg-protocol': '1.16.1' } as const;

/**
 * A parameter as `pg` sends it in text form (its `prepareValue`): null for null and undefined, bytes as they
 * are, arrays as array literals, other objects as JSON, the rest by `toString`. Dates and `toPostgres`
 * objects are refused: no statement of the service sends one.
 */
export function toWireValue(value: unknown): string | Buffer | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') return String(value);
  if (value instanceof Buffer) return value;
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof Date || typeof (value as { toPostgres?: unknown }).toPostgres === 'function') {
    throw new TypeError('dates and toPostgres values are not sent by the service (see pg-codec.ts)');
  }
  if (Array.isArray(value)) return arrayLiteral(value);
  return JSON.stringify(value);
}

function arrayLiteral(values: readonly unknown[]): string {
  const items = values.map((item) => {
    if (item === null || item === undefined) return 'NULL';
    if (Array.isArray(item)) return arrayLiteral(item);
    if (ArrayBuffer.isView(item)) {
      return `\\\\x${Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('hex')}`;
    }
    const text = toWireValue(item) as string;
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${items.join(',')}}`;
}

/** The backend messages the embedded backend reads, with the members it uses. */
export type BackendMessage =
  | { name: 'rowDescription'; fields: { name: string; dataTypeID: number }[] }
  | { name: 'dataRow'; fields: (string | null)[] }
  | { name: 'parseComplete' }
  | { name: 'error'; error: DatabaseError }
  | { name: 'notification'; channel: string; payload: string }
  | { name: 'readyForQuery'; status: string }
  | { name: 'other' };

type ParsedMessage = Parameters<Parameters<typeof parse>[1]>[0];

const READ = new Set(['rowDescription', 'dataRow', 'parseComplete', 'notification', 'readyForQuery']);

function narrow(message: ParsedMessage): BackendMessage {
  if (message.name === 'error') return { name: 'error', error: message as DatabaseError };
  return READ.has(message.name) ? (message as unknown as BackendMessage) : { name: 'other' };
}

/**
 * Reads one complete answer's messages, in order, before returning, with a parser of its own (nothing left
 * from an answer that failed). `parse` consumes a stream's `data` events; the answer is emitted here as one
 * such event, at once, since a stream's machinery cost more than the parse. Should `parse` ever read its
 * stream another way, the answer is not read to its end (neither a ReadyForQuery nor an error came) and this
 * throws.
 */
export function readMessages(bytes: Uint8Array, onMessage: (message: BackendMessage) => void): void {
  let emitData: ((chunk: Buffer) => void) | undefined;
  const source = {
    on(event: string, listener: (chunk: Buffer) => void) {
      if (event === 'data') emitData = listener;
      return source;
    },
  };
  let ended = bytes.byteLength === 0;
  let failure: { error: unknown } | undefined;
  void parse(source as unknown as NodeJS.ReadableStream, (parsed) => {
    if (failure) return;
    try {
      const message = narrow(parsed);
      // An error is an answer too: a database that cannot write (a full disk) may end with it, before any
      // ReadyForQuery.
      if (message.name === 'readyForQuery' || message.name === 'error') ended = true;
      onMessage(message);
    } catch (error) {
      failure = { error };
    }
  });
  emitData?.(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (failure) throw failure.error;
  if (!ended) throw new Error('the answer was not read to its end (pg-codec.ts)');
}
