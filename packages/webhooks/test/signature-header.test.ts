import { parseSignatureHeader, SIGNATURE_HEADER_LIMITS, WebhookVerificationError } from '@svc-kit/webhooks';
import { describe, expect, it } from 'vitest';

const HEX_A = 'a'.repeat(64);
const HEX_B = 'b'.repeat(64);

describe('parseSignatureHeader', () => {
  it('returns t as text and every v1 in order', () => {
    expect(parseSignatureHeader(`t=1763769600,v1=${HEX_A},v1=${HEX_B}`)).toEqual({
      timestamp: '1763769600',
      signatures: [HEX_A, HEX_B],
    });
  });

  it('keeps t exactly as received, leading zeros included', () => {
    expect(parseSignatureHeader(`t=0042,v1=${HEX_A}`).timestamp).toBe('0042');
  });

  it('accepts parts in any order and spaces or tabs around them', () => {
    expect(parseSignatureHeader(` v1=${HEX_A} ,\tt=5 `)).toEqual({ timestamp: '5', signatures: [HEX_A] });
  });

  it('skips unknown schemes, and keeps an ill-formed v1 beside a well-formed one (it can never match)', () => {
    expect(parseSignatureHeader(`t=5,v0=x,v2=${HEX_B},v1=nothex,scheme=,v1=${HEX_A}`)).toEqual({
      timestamp: '5',
      signatures: ['nothex', HEX_A],
    });
  });

  it('splits only at the first =', () => {
    expect(parseSignatureHeader(`t=5,v1=ab=cd,v1=${HEX_A}`).signatures).toEqual(['ab=cd', HEX_A]);
  });

  it.each([
    ['', 'empty'],
    ['t=5', 'no v1'],
    [`v1=${HEX_A}`, 't is missing'],
    [`t=5,t=5,v1=${HEX_A}`, 'more than once'],
    [`t=-5,v1=${HEX_A}`, 'digits only'],
    [`t=٣,v1=${HEX_A}`, 'digits only'],
    [`T=5,v1=${HEX_A}`, 't is missing'],
    [`t=5,,v1=${HEX_A}`, 'empty part'],
    [`t=5;v1=${HEX_A}`, 'digits only'],
    ['t=5,v1=', '64 hex digits'],
    [`t=5,v1=${HEX_A.slice(2)}`, '64 hex digits'],
    [`t=5,v1=${Buffer.alloc(32).toString('base64')}`, '64 hex digits'],
  ])('refuses %j (%s)', (value, why) => {
    let error: unknown;
    try {
      parseSignatureHeader(value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as WebhookVerificationError).reason).toBe('malformed_header');
    expect((error as WebhookVerificationError).message).toContain(why);
  });

  it('bounds the length and the number of parts', () => {
    const long = `t=5,v1=${HEX_A},v0=${'a'.repeat(SIGNATURE_HEADER_LIMITS.maxLength)}`;
    expect(() => parseSignatureHeader(long)).toThrow(/characters long/);
    const many = `t=5${`,v1=${HEX_A}`.repeat(SIGNATURE_HEADER_LIMITS.maxParts)}`;
    expect(() => parseSignatureHeader(many)).toThrow(/parts/);
    const atLimit = `t=5${`,v1=${HEX_A}`.repeat(SIGNATURE_HEADER_LIMITS.maxParts - 1)}`;
    expect(parseSignatureHeader(atLimit).signatures).toHaveLength(SIGNATURE_HEADER_LIMITS.maxParts - 1);
  });

  it('refuses non-string input with a typed error', () => {
    for (const value of [undefined, null, 5, {}, ['t=5']]) {
      expect(() => parseSignatureHeader(value as never)).toThrow(WebhookVerificationError);
    }
  });
});
