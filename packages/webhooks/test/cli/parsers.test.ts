// Property tests of the CLI's own parsers: the headers-file reader and the shell quoting of the curl format.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHeadersFile } from '../../src/cli/headers-file';
import { shellQuote } from '../../src/cli/shell-quote';
import { UsageError } from '../../src/cli/usage-error';

const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/);
// Header values as they appear on the wire: visible characters and inner spaces, no line breaks.
const fieldValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,40}[\x21-\x7e])?$/);
const headerRecord = fc.dictionary(
  token.map((name) => name.toLowerCase()),
  fieldValue,
  { minKeys: 1, maxKeys: 8 },
);

describe('parseHeadersFile', () => {
  it('reads back any set of headers written as raw HTTP, with or without a request line', () => {
    fc.assert(
      fc.property(headerRecord, fc.boolean(), fc.constantFrom('\n', '\r\n'), (headers, requestLine, eol) => {
        const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
        const text = (requestLine ? ['POST /webhooks HTTP/1.1', ...lines] : lines).join(eol) + eol;
        expect(parseHeadersFile(text, 'h.txt')).toEqual(headers);
      }),
    );
  });

  it('reads back any set of headers written as JSON', () => {
    fc.assert(
      fc.property(headerRecord, (headers) => {
        expect(parseHeadersFile(JSON.stringify(headers), 'h.json')).toEqual(headers);
      }),
    );
  });

  it('keeps a repeated header as a list, in order', () => {
    const text = 'X-Service-Signature: t=1,v1=aa\nx-service-signature: t=2,v1=bb\n';
    expect(parseHeadersFile(text, 'h.txt')).toEqual({ 'x-service-signature': ['t=1,v1=aa', 't=2,v1=bb'] });
  });

  it('on any input, returns headers or throws a UsageError naming the file', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        try {
          const headers = parseHeadersFile(text, 'input.txt');
          expect(typeof headers).toBe('object');
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          expect((error as Error).message).toContain('input.txt');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('shellQuote', () => {
  it('gives back every string unchanged after a POSIX shell parses it', () => {
    const samples = fc.sample(
      fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0')),
      300,
    );
    samples.push('', "it's", '$(rm -rf /)', '`id`', 'a b', '"quoted"', '\\', '*', '\n');
    const script = samples.map((sample) => `printf '%s\\0' ${shellQuote(sample)}`).join('\n');
    const result = spawnSync('sh', ['-c', script], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout.split('\0').slice(0, -1)).toEqual(samples);
  });
});
