import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { bodyBytes } from '../src/body.mjs';

const read = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../${name}`, import.meta.url), 'utf8'));

interface VectorFile {
  cases: Array<{ name: string; body: Parameters<typeof bodyBytes>[0] }>;
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(read('signature-cases.schema.json') as object, 'signature-cases.schema.json');
ajv.addSchema(read('payload-cases.schema.json') as object, 'payload-cases.schema.json');

describe.each(['signature-cases', 'payload-cases'])('%s.json', (file) => {
  const data = read(`${file}.json`);

  it('matches its JSON Schema', () => {
    const validate = ajv.getSchema(`${file}.schema.json`);
    expect(validate).toBeDefined();
    const ok = validate?.(data);
    expect(validate?.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('gives every case a unique name', () => {
    const names = (data as VectorFile).cases.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('body spellings', () => {
  const cases = (read('signature-cases.json') as VectorFile).cases;
  const byName = (name: string) => {
    const found = cases.find((c) => c.name === name);
    if (!found) throw new Error(`no case ${name}`);
    return found;
  };

  it('a repeat spec stands for exactly times × repeat bytes', () => {
    const bytes = bodyBytes(byName('body-1-mib').body);
    expect(bytes.length).toBe(1024 * 1024);
    expect(bytes.every((b) => b === 0x61)).toBe(true);
  });

  it('a base64 body keeps bytes that are not UTF-8', () => {
    const bytes = bodyBytes(byName('body-not-utf8-bytes').body);
    expect(bytes[0]).toBe(0xff);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
  });

  it('a utf8 body is encoded as UTF-8, four bytes per astral character', () => {
    const bytes = bodyBytes(byName('body-unicode-non-bmp').body);
    expect(bytes.includes(Buffer.from([0xf0, 0x9d, 0x84, 0x9e]))).toBe(true); // U+1D11E
  });
});
