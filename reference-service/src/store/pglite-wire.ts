import { type DatabaseError, serialize } from 'pg-protocol';
import { columnTypes } from './column-types.js';
import { readMessages, toWireValue } from './pg-codec.js';

/** The embedded database's wire protocol, encoded and decoded on the service's thread (see pglite.ts). */

/**
 * One statement with parameters, as one extended-protocol batch: Parse, Bind, Describe, Execute, Sync.
 * With a name, the statement is prepared under it (`parse`) or only bound and run (already prepared).
 */
export function encodeStatement(
  sql: string,
  params: readonly unknown[],
  prepared?: { name: string; parse: boolean },
): Uint8Array {
  const bind = serialize.bind({
    ...(prepared ? { statement: prepared.name } : {}),
    values: [...params],
    valueMapper: (value: unknown) => toWireValue(value),
  });
  const tail = [bind, serialize.describe({ type: 'P' }), serialize.execute(), serialize.sync()];
  if (prepared && !prepared.parse) return ownBuffer(tail);
  return ownBuffer([serialize.parse({ text: sql, ...(prepared ? { name: prepared.name } : {}) }), ...tail]);
}

/** A script of several statements without parameters (migrations, BEGIN, LISTEN), as one simple Query. */
export function encodeScript(sql: string): Uint8Array {
  return ownBuffer([serialize.query(sql)]);
}

/**
 * The messages in one buffer of exactly their size, which the thread can take over without a copy (small
 * Buffers are views of a shared pool, which a transfer would detach and a copy would copy whole).
 */
function ownBuffer(messages: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(messages.reduce((size, message) => size + message.length, 0));
  let at = 0;
  for (const message of messages) {
    bytes.set(message, at);
    at += message.length;
  }
  return bytes;
}

/** What the database answered to one batch, up to and including its ReadyForQuery. */
export interface Answer {
  /** The rows of the last result set, with `pg`'s column conversions. */
  rows: object[];
  /** The first error; the database skips the rest of the batch after it. */
  error: DatabaseError | undefined;
  /** The notifications that arrived with the answer (sent by a commit in it). */
  notified: { channel: string; payload: string }[];
  /** Whether the session was outside any transaction at the end (the ReadyForQuery status `I`). */
  idle: boolean;
  /** Whether a Parse of the batch succeeded (a named statement exists from then on). */
  parsed: boolean;
}

type Column = { name: string; parse: (text: string) => unknown };

export function decodeAnswer(bytes: Uint8Array): Answer {
  const answer: Answer = { rows: [], error: undefined, notified: [], idle: false, parsed: false };
  let columns: Column[] = [];
  readMessages(bytes, (message) => {
    switch (message.name) {
      case 'rowDescription':
        columns = message.fields.map((field) => ({
          name: field.name,
          parse: columnTypes.getTypeParser(field.dataTypeID, 'text') as (text: string) => unknown,
        }));
        answer.rows = [];
        break;
      case 'dataRow': {
        const { fields } = message;
        const row: Record<string, unknown> = {};
        for (let i = 0; i < columns.length; i++) {
          const column = columns[i]!;
          const text = fields[i] ?? null;
          row[column.name] = text === null ? null : column.parse(text);
        }
        answer.rows.push(row);
        break;
      }
      case 'parseComplete':
        answer.parsed = true;
        break;
      case 'error':
        answer.error ??= message.error;
        break;
      case 'notification':
        answer.notified.push({ channel: message.channel, payload: message.payload });
        break;
      case 'readyForQuery':
        answer.idle = message.status === 'I';
        break;
    }
  });
  return answer;
}
