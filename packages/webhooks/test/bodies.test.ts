// The body is hashed exactly as received, whatever form it takes, and every form gives the same answer.
import * as nodeBuild from '@svc-kit/webhooks';
import { describe, expect, it } from 'vitest';
import {
  BUILDS,
  baseOptions,
  messageEvent,
  NOW_S,
  outcome,
  referenceHeader,
  SECRET,
} from './support/fixtures';

/** The forms an integration may hand over: string, Buffer, plain Uint8Array, ArrayBuffer, a view into a larger buffer. */
function forms(text: string): Array<[string, unknown]> {
  const buffer = Buffer.from(text, 'utf8');
  const plain = new Uint8Array(buffer);
  const padded = new Uint8Array(buffer.length + 8);
  padded.set(buffer, 4);
  return [
    ['string', text],
    ['Buffer', buffer],
    ['Uint8Array', plain],
    ['ArrayBuffer', plain.slice().buffer],
    ['offset view', padded.subarray(4, 4 + buffer.length)],
    ['DataView', new DataView(padded.buffer, 4, buffer.length)],
  ];
}

const texts: Array<[string, string]> = [
  ['compact JSON', JSON.stringify(messageEvent())],
  ['pretty JSON with CRLF line ends', JSON.stringify(messageEvent(), null, 2).replaceAll('\n', '\r\n')],
  ['pretty JSON with LF line ends', JSON.stringify(messageEvent(), null, 2)],
  ['unicode (accents, CJK, emoji, RTL)', JSON.stringify(messageEvent({ note: 'héllo 世界 🎉 שלום' }))],
  ['escaped unicode', JSON.stringify(messageEvent()).replace('acme-support', '\\u0061cme-support')],
  ['a UTF-8 byte order mark', `\uFEFF${JSON.stringify(messageEvent())}`],
];

describe.each(BUILDS)('$name', (build) => {
  describe.each(texts)('%s', (_, text) => {
    const headers = { 'x-service-signature': referenceHeader([SECRET], NOW_S, text) };

    it.each(forms(text))('verifies as a %s', async (_form, body) => {
      expect(await outcome(build, body, headers, baseOptions)).toBe('ok');
    });

    it('is refused after one line-ending conversion', async () => {
      const converted = text.includes('\r\n') ? text.replaceAll('\r\n', '\n') : text.replaceAll('\n', '\r\n');
      if (converted === text) return expect(text).not.toMatch(/\n/);
      expect(await outcome(build, converted, headers, baseOptions)).toBe('no_matching_signature');
    });
  });

  it('returns the same event for every form of one body', async () => {
    const text = JSON.stringify(messageEvent({ note: 'é' }));
    const headers = { 'x-service-signature': referenceHeader([SECRET], NOW_S, text) };
    const events = await Promise.all(forms(text).map(([, body]) => build.safe(body, headers, baseOptions)));
    for (const result of events) expect(result).toEqual(events[0]);
    expect(events[0]!.ok).toBe(true);
  });

  it('does not consume or modify the body it is given', async () => {
    const text = JSON.stringify(messageEvent());
    const buffer = Buffer.from(text);
    const copy = Buffer.from(buffer);
    const headers = { 'x-service-signature': referenceHeader([SECRET], NOW_S, text) };
    await build.safe(buffer, headers, baseOptions);
    await build.safe(buffer, headers, baseOptions);
    expect(buffer.equals(copy)).toBe(true);
  });
});

describe('a string with unpaired surrogates', () => {
  it('is hashed as its UTF-8 encoding (U+FFFD) by every build alike', async () => {
    const text = JSON.stringify(messageEvent({ note: 'x\uD800y' }));
    const headers = { 'x-service-signature': referenceHeader([SECRET], NOW_S, Buffer.from(text, 'utf8')) };
    for (const build of BUILDS) expect(await outcome(build, text, headers, baseOptions)).toBe('ok');
  });
});

describe('verifySignature (signature and time only)', () => {
  const text = 'any bytes at all, not even JSON';
  const header = referenceHeader([SECRET], NOW_S, text);

  it('accepts a valid signature over a non-JSON body, sync and async', async () => {
    expect(nodeBuild.verifySignature(text, header, baseOptions)).toBeUndefined();
    await expect(nodeBuild.verifySignatureAsync(text, header, baseOptions)).resolves.toBeUndefined();
    const web = await import('@svc-kit/webhooks/web');
    await expect(web.verifySignatureAsync(Buffer.from(text), header, baseOptions)).resolves.toBeUndefined();
  });

  it.each([
    [null, 'missing_header'],
    [undefined, 'missing_header'],
    ['', 'missing_header'],
    ['t=1', 'malformed_header'],
    [header.slice(0, -1) + (header.endsWith('0') ? '1' : '0'), 'no_matching_signature'],
  ])('refuses %j with %s', async (value, reason) => {
    expect(() => nodeBuild.verifySignature(text, value, baseOptions)).toThrow(
      expect.objectContaining({ reason }),
    );
    await expect(nodeBuild.verifySignatureAsync(text, value, baseOptions)).rejects.toMatchObject({ reason });
    const web = await import('@svc-kit/webhooks/web');
    await expect(web.verifySignatureAsync(text, value, baseOptions)).rejects.toMatchObject({ reason });
  });

  it('refuses a non-string header value with a typed error', () => {
    expect(() => nodeBuild.verifySignature(text, 42 as never, baseOptions)).toThrow(
      expect.objectContaining({ reason: 'malformed_header' }),
    );
  });
});
