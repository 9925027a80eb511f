import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type BackendMessage, PINNED_VERSIONS, readMessages, toWireValue } from '../../src/store/pg-codec.js';

const require = createRequire(import.meta.url);

/** The installed version of a package, from the package.json beside its main file. */
function installedVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version: string;
      };
      if (manifest.name === name) return manifest.version;
    } catch {}
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json for ${name}`);
    dir = up;
  }
}

describe('the pg codec adapter', () => {
  it.each(Object.entries(PINNED_VERSIONS))(
    'is pinned to the installed %s (a new release: compare the copy in pg-codec.ts, then move the pin)',
    (name, pinned) => {
      expect(installedVersion(name)).toBe(pinned);
    },
  );

  it("converts every kind of parameter the service sends as pg's own conversion does", () => {
    // pg's conversion, reached here only to compare the copy with it.
    const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;
    const values: unknown[] = [
      null,
      undefined,
      'text with "quotes" and \\ backslashes',
      '',
      42,
      -1.5,
      1_700_000_000_000,
      true,
      false,
      10n,
      Buffer.from([0, 1, 255]),
      new Uint8Array([7, 8]),
      ['a', 'b"c', 'd\\e', null, ''],
      [1, 2, 3],
      [
        ['x', null],
        ['y', 'z'],
      ],
      [new Uint8Array([1, 2])],
      { nested: { json: [1, 'two', null] } },
      [{ in: 'array' }],
    ];
    for (const value of values) expect(toWireValue(value)).toEqual(prepareValue(value));
  });

  it('refuses a date rather than guess its time zone', () => {
    expect(() => toWireValue(new Date())).toThrow(TypeError);
  });

  it('reads a whole answer, however long, before it returns', () => {
    const payload = 'x'.repeat(1 << 20);
    const notification = backendMessage('A', [int32(7), cString('channel'), cString(payload)]);
    const ready = backendMessage('Z', [Buffer.from('I')]);
    const seen: BackendMessage[] = [];
    readMessages(Buffer.concat([notification, ready]), (message) => seen.push(message));
    expect(seen.map((message) => message.name)).toEqual(['notification', 'readyForQuery']);
    expect(seen[0]).toMatchObject({ channel: 'channel', payload });
    // One that stops short of its ReadyForQuery is refused, not half read.
    expect(() => readMessages(notification, () => {})).toThrow(/not read to its end/);
  });
});

function int32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value);
  return bytes;
}

function cString(text: string): Buffer {
  return Buffer.concat([Buffer.from(text), Buffer.from([0])]);
}

function backendMessage(code: string, parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from(code), int32(body.length + 4), body]);
}
