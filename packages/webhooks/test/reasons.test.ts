// One test per refusal reason, run through every build and form (see support/fixtures.ts: BUILDS).
import { WebhookVerificationError } from '@svc-kit/webhooks';
import { describe, expect, it } from 'vitest';
import {
  BUILDS,
  baseOptions,
  bytesOf,
  CONTACT,
  delivery,
  messageEvent,
  NOW_S,
  outcome,
  referenceHeader,
  SECRET,
} from './support/fixtures';

describe.each(BUILDS)('$name', (build) => {
  it('accepts a well-signed delivery and returns the event from the body', async () => {
    const { body, headers } = delivery();
    const result = await build.safe(body, headers, baseOptions);
    expect(result).toEqual({ ok: true, event: messageEvent() });
  });

  describe('missing_header', () => {
    it.each([
      ['absent', {}],
      ['empty', { 'x-service-signature': '' }],
      ['blank', { 'x-service-signature': '   ' }],
      ['an empty list', { 'x-service-signature': [] }],
    ])('when the signature header is %s', async (_, headers) => {
      const { body } = delivery();
      expect(await outcome(build, body, headers, baseOptions)).toBe('missing_header');
    });

    it('when the headers object itself is missing', async () => {
      const { body } = delivery();
      expect(await outcome(build, body, undefined as never, baseOptions)).toBe('missing_header');
    });
  });

  describe('malformed_header', () => {
    const { body } = delivery();
    const v1 = referenceHeader([SECRET], NOW_S, body).split(',')[1]!;
    it.each([
      ['not key=value', 'garbage'],
      ['t missing', v1],
      ['t empty', `t=,${v1}`],
      ['t not digits', `t=abc,${v1}`],
      ['t signed', `t=+${NOW_S},${v1}`],
      ['t fractional', `t=${NOW_S}.5,${v1}`],
      ['t with inner space', `t=17 63,${v1}`],
      ['t too long', `t=${'9'.repeat(16)},${v1}`],
      ['t twice', `t=${NOW_S},t=${NOW_S},${v1}`],
      ['no v1', `t=${NOW_S}`],
      ['only unknown schemes', `t=${NOW_S},v0=abc,v2=def`],
      ['a trailing comma', `t=${NOW_S},${v1},`],
      ['a part without =', `t=${NOW_S},${v1},junk`],
      ['too long', `t=${NOW_S},${v1},v0=${'a'.repeat(5000)}`],
      ['too many parts', `t=${NOW_S},${v1}${',v0=a'.repeat(20)}`],
    ])('when %s', async (_, value) => {
      expect(await outcome(build, body, { 'x-service-signature': value }, baseOptions)).toBe(
        'malformed_header',
      );
    });

    it('when the header arrives twice', async () => {
      const header = referenceHeader([SECRET], NOW_S, body);
      const headers = { 'x-service-signature': [header, header] };
      expect(await outcome(build, body, headers, baseOptions)).toBe('malformed_header');
    });

    it('when the header value is not text', async () => {
      expect(await outcome(build, body, { 'x-service-signature': 42 } as never, baseOptions)).toBe(
        'malformed_header',
      );
    });
  });

  describe('timestamp_too_old / timestamp_too_new', () => {
    it('refuses a delivery signed 10 minutes ago', async () => {
      const { body, headers } = delivery(messageEvent(), { t: NOW_S - 600 });
      expect(await outcome(build, body, headers, baseOptions)).toBe('timestamp_too_old');
    });

    it('refuses a delivery signed 10 minutes ahead', async () => {
      const { body, headers } = delivery(messageEvent(), { t: NOW_S + 600 });
      expect(await outcome(build, body, headers, baseOptions)).toBe('timestamp_too_new');
    });
  });

  describe('no_matching_signature', () => {
    it('under another secret', async () => {
      const { body, headers } = delivery(messageEvent(), { secrets: ['whsec_someone_else'] });
      expect(await outcome(build, body, headers, baseOptions)).toBe('no_matching_signature');
    });

    it('when the body was changed after signing', async () => {
      const { body, headers } = delivery();
      const changed = body.replace('acme-support', 'acme-supporT');
      expect(await outcome(build, changed, headers, baseOptions)).toBe('no_matching_signature');
    });

    it('when the timestamp was changed after signing (t is signed)', async () => {
      const { body, headers } = delivery();
      const moved = headers['x-service-signature'].replace(`t=${NOW_S}`, `t=${NOW_S - 1}`);
      const result = await outcome(build, body, { ...headers, 'x-service-signature': moved }, baseOptions);
      expect(result).toBe('no_matching_signature');
    });

    it('when t is re-formatted (leading zero): the text of t is what is signed', async () => {
      const { body, headers } = delivery();
      const padded = headers['x-service-signature'].replace(`t=${NOW_S}`, `t=0${NOW_S}`);
      const result = await outcome(build, body, { ...headers, 'x-service-signature': padded }, baseOptions);
      expect(result).toBe('no_matching_signature');
    });

    it.each([
      ['too short', 'abcd'],
      ['too long', 'a'.repeat(66)],
      ['not hex', 'z'.repeat(64)],
      ['empty', ''],
      ['64 hex digits with a bad one at the end', `${'a'.repeat(63)}g`],
      ['base64', Buffer.alloc(32, 7).toString('base64')],
    ])('is malformed_header when the only v1 is %s (never decoded, never a crash)', async (_, v1) => {
      const { body, headers } = delivery();
      const header = `t=${NOW_S},v1=${v1}`;
      expect(await outcome(build, body, { ...headers, 'x-service-signature': header }, baseOptions)).toBe(
        'malformed_header',
      );
    });

    it('skips an ill-formed v1 beside a well-formed one', async () => {
      const { body, headers } = delivery();
      const header = `${headers['x-service-signature']},v1=${'z'.repeat(64)},v1=abc`;
      expect(await outcome(build, body, { ...headers, 'x-service-signature': header }, baseOptions)).toBe(
        'ok',
      );
      const [t, v1] = headers['x-service-signature'].split(',');
      const before = `${t},v1=,${v1}`;
      expect(await outcome(build, body, { ...headers, 'x-service-signature': before }, baseOptions)).toBe(
        'ok',
      );
    });

    it('accepts v1 in upper-case hex (same bytes)', async () => {
      const { body, headers } = delivery();
      const [t, v1] = headers['x-service-signature'].split(',');
      const upper = `${t},${v1!.toUpperCase().replace('V1=', 'v1=')}`;
      expect(await outcome(build, body, { ...headers, 'x-service-signature': upper }, baseOptions)).toBe(
        'ok',
      );
    });

    it('ignores unknown schemes, wherever they are', async () => {
      const { body, headers } = delivery();
      const [t, v1] = headers['x-service-signature'].split(',');
      const header = `v0=deadbeef, ${t} ,v2=${'f'.repeat(64)},\t${v1}`;
      expect(await outcome(build, body, { ...headers, 'x-service-signature': header }, baseOptions)).toBe(
        'ok',
      );
    });
  });

  describe('body_was_parsed', () => {
    const { body, headers } = delivery();
    it.each([
      ['an object (express.json())', JSON.parse(body)],
      ['an array', [1, 2]],
      ['undefined (no body parser ran)', undefined],
      ['null', null],
      ['a number', 42],
      ['a boolean', true],
    ])('when the body is %s', async (_, parsed) => {
      expect(await outcome(build, parsed, headers, baseOptions)).toBe('body_was_parsed');
    });

    it('explains how to get the raw body', async () => {
      const result = await build.safe(JSON.parse(body), headers, baseOptions);
      expect(result.ok || result.error.message).toMatch(/express\.raw/);
      expect(result.ok || result.error.message).toMatch(/request\.text\(\)/);
    });

    it('says when the body is a stream or a Request rather than its content', async () => {
      const stream = await build.safe({ pipe() {} }, headers, baseOptions);
      expect(stream.ok || stream.error.message).toMatch(/stream/);
      const request = await build.safe(
        new Request('http://x', { method: 'POST', body }),
        headers,
        baseOptions,
      );
      expect(request.ok || request.error.message).toMatch(/request\.text\(\)/);
    });
  });

  describe('invalid_json', () => {
    it('when the signed body is not JSON', async () => {
      const body = 'hello, not json';
      const headers = { 'x-service-signature': referenceHeader([SECRET], NOW_S, body) };
      expect(await outcome(build, body, headers, baseOptions)).toBe('invalid_json');
    });

    it('when the signed body is not UTF-8', async () => {
      const body = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
      const headers = { 'x-service-signature': referenceHeader([SECRET], NOW_S, body) };
      expect(await outcome(build, body, headers, baseOptions)).toBe('invalid_json');
    });

    it('when the signed body is empty', async () => {
      const headers = { 'x-service-signature': referenceHeader([SECRET], NOW_S, '') };
      expect(await outcome(build, '', headers, baseOptions)).toBe('invalid_json');
    });

    it('does not quote the body in the message', async () => {
      const body = 'secret-looking-content';
      const headers = { 'x-service-signature': referenceHeader([SECRET], NOW_S, body) };
      const result = await build.safe(body, headers, baseOptions);
      expect(result.ok || result.error.message).not.toContain('secret-looking');
    });
  });

  describe('invalid_payload', () => {
    it.each([
      ['a JSON array', [messageEvent()]],
      ['no id', { ...messageEvent(), id: undefined }],
      ['an id without evt_', messageEvent({ id: 'msg_1' })],
      ['created_at in seconds with a fraction', messageEvent({ created_at: 1.5 })],
      ['created_at as a string', messageEvent({ created_at: '1763769600000' })],
      ['no identity', { ...messageEvent(), identity: undefined }],
      ['data not an object', messageEvent({ data: 'x' })],
      ['data an array', messageEvent({ data: [] })],
      ['message.received without thread_id', messageEvent({ data: { contact: CONTACT } })],
      ['a contact that is not a digest', messageEvent({ data: { thread_id: 't', contact: 'alice' } })],
      [
        'an upper-case digest',
        messageEvent({ data: { thread_id: 't', contact: `sha256:${'AB'.repeat(32)}` } }),
      ],
      [
        'contact.approved without contact',
        messageEvent({ type: 'contact.approved', data: { thread_id: 't' } }),
      ],
      [
        'integration.exposure_updated with a fractional version',
        messageEvent({ type: 'integration.exposure_updated', data: { integration: 'gh', version: 1.5 } }),
      ],
    ])('when the body has %s', async (_, event) => {
      const body = JSON.stringify(event);
      const headers = { 'x-service-signature': referenceHeader([SECRET], NOW_S, body) };
      expect(await outcome(build, body, headers, baseOptions)).toBe('invalid_payload');
    });

    it('names the failing field', async () => {
      const body = JSON.stringify(messageEvent({ data: { thread_id: 't', contact: 'alice' } }));
      const headers = { 'x-service-signature': referenceHeader([SECRET], NOW_S, body) };
      const result = await build.safe(body, headers, baseOptions);
      expect(result.ok || result.error.message).toContain('data.contact');
    });
  });

  describe('header_mismatch', () => {
    it('when X-Service-Event-Id disagrees with the signed body', async () => {
      const { body, headers } = delivery();
      const result = await outcome(
        build,
        body,
        { ...headers, 'x-service-event-id': 'evt_other' },
        baseOptions,
      );
      expect(result).toBe('header_mismatch');
    });

    it('when X-Service-Event-Type disagrees with the signed body', async () => {
      const { body, headers } = delivery();
      const result = await outcome(
        build,
        body,
        { ...headers, 'x-service-event-type': 'contact.approved' },
        baseOptions,
      );
      expect(result).toBe('header_mismatch');
    });

    it('accepts a delivery without the id and type headers (the body is authoritative)', async () => {
      const { body, headers } = delivery();
      const only = { 'x-service-signature': headers['x-service-signature'] };
      expect(await outcome(build, body, only, baseOptions)).toBe('ok');
    });
  });

  describe('invalid_secret', () => {
    const { body, headers } = delivery();
    it.each([
      ['empty', ''],
      ['an empty list', []],
      ['a list with an empty secret', [SECRET, '']],
      ['a list with a non-string', [SECRET, 42]],
      ['a number', 42],
      ['missing', undefined],
    ])('when the secret is %s', async (_, secret) => {
      const options = { ...baseOptions, secret: secret as never };
      expect(await outcome(build, body, headers, options)).toBe('invalid_secret');
    });

    it('suggests the likely cause of an empty secret', async () => {
      const result = await build.safe(body, headers, { ...baseOptions, secret: '' });
      expect(result.ok || result.error.message).toMatch(/environment variable/);
    });
  });

  describe('invalid_options', () => {
    const { body, headers } = delivery();
    it.each([
      ['0 (never read as "disabled")', 0],
      ['negative', -1],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['a string', '300'],
    ])('when toleranceSeconds is %s', async (_, toleranceSeconds) => {
      const options = { ...baseOptions, toleranceSeconds: toleranceSeconds as number };
      expect(await outcome(build, body, headers, options)).toBe('invalid_options');
    });

    it.each([
      ['not a function', 123],
      ['returning NaN', () => Number.NaN],
      ['returning a string', () => '2025'],
      [
        'throwing',
        () => {
          throw new Error('clock broke');
        },
      ],
    ])('when now is %s', async (_, now) => {
      expect(await outcome(build, body, headers, { ...baseOptions, now: now as never })).toBe(
        'invalid_options',
      );
    });

    it.each([
      ['null', null],
      ['a string', SECRET],
    ])('when the options are %s', async (_, options) => {
      expect(await outcome(build, body, headers, options as never)).toBe('invalid_options');
    });

    it('reports a set-up mistake before a problem with the delivery', async () => {
      expect(await outcome(build, { parsed: true }, {}, { secret: SECRET, toleranceSeconds: 0 })).toBe(
        'invalid_options',
      );
      expect(await outcome(build, { parsed: true }, {}, { secret: '' })).toBe('invalid_secret');
      expect(await outcome(build, { parsed: true }, {}, { secret: SECRET })).toBe('body_was_parsed');
    });
  });

  it('never puts a secret in an error message', async () => {
    const { body, headers } = delivery(messageEvent(), { secrets: ['other'] });
    const secrets = [` ${SECRET}\n`, `"${SECRET}"`, SECRET];
    const result = await build.safe(body, headers, { ...baseOptions, secret: secrets });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.message).not.toContain(SECRET.slice(6));
      expect(result.error.message).toMatch(/Secret #1 has leading or trailing whitespace/);
      expect(result.error.message).toMatch(/Secret #2 is wrapped in quotes/);
      expect(result.error.message).not.toMatch(/Secret #3/);
    }
  });

  it('uses the secret exactly as given: a trimmed secret does not verify a whitespace one', async () => {
    const { body, headers } = delivery(messageEvent(), { secrets: [` ${SECRET}`] });
    expect(await outcome(build, body, headers, baseOptions)).toBe('no_matching_signature');
    expect(await outcome(build, body, headers, { ...baseOptions, secret: ` ${SECRET}` })).toBe('ok');
  });

  it('does not base64-decode the secret', async () => {
    const secret = 'c2VjcmV0';
    const { body, headers } = delivery(messageEvent(), { secrets: [secret] });
    expect(await outcome(build, body, headers, { ...baseOptions, secret })).toBe('ok');
    const decodedKey = Buffer.from(secret, 'base64').toString('latin1');
    expect(await outcome(build, body, headers, { ...baseOptions, secret: decodedKey })).toBe(
      'no_matching_signature',
    );
  });

  it('reads header names case-insensitively from plain records and Fetch Headers', async () => {
    const { body, headers } = delivery();
    const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await outcome(build, body, shouted, baseOptions)).toBe('ok');
    expect(await outcome(build, body, new Headers(headers), baseOptions)).toBe('ok');
    expect(await outcome(build, bytesOf(body), new Headers(shouted), baseOptions)).toBe('ok');
  });
});

describe('error type', () => {
  it('is one class with a stable name, a reason, and instanceof across copies', async () => {
    const result = await BUILDS[0]!.safe({}, {}, baseOptions);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.name).toBe('WebhookVerificationError');
    // A structurally identical error from another copy of the SDK (ESM and CJS both loaded).
    const foreign = Object.defineProperty(
      new Error('x'),
      Symbol.for('@svc-kit/webhooks/WebhookVerificationError'),
      {
        value: true,
      },
    );
    expect(foreign instanceof WebhookVerificationError).toBe(true);
    expect(new Error('x') instanceof WebhookVerificationError).toBe(false);
  });
});
