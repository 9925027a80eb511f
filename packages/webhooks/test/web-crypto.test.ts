// The Web build's use of Web Crypto: keys imported once per secret, a clear error where it is missing.
import * as webBuild from '@svc-kit/webhooks/web';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { baseOptions, delivery, messageEvent } from './support/fixtures';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('the Web build', () => {
  it('imports each secret as a key once, then reuses it', async () => {
    const secret = `whsec_cache_${Math.random()}`;
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey');
    const { body, headers } = delivery(messageEvent(), { secrets: [secret] });
    for (let i = 0; i < 5; i++) {
      const result = await webBuild.safeVerifyAsync(body, headers, { ...baseOptions, secret });
      expect(result.ok).toBe(true);
    }
    expect(importKey).toHaveBeenCalledTimes(1);
  });

  it('keeps verifying correctly when more secrets are used than the cache holds', async () => {
    const secrets = Array.from({ length: 40 }, (_, i) => `whsec_many_${i}`);
    for (const round of [0, 1]) {
      for (const secret of secrets) {
        const { body, headers } = delivery(messageEvent(), { secrets: [secret] });
        const result = await webBuild.safeVerifyAsync(body, headers, { ...baseOptions, secret });
        expect(result.ok, `${secret}, round ${round}`).toBe(true);
      }
    }
  });

  it('reports a runtime without Web Crypto as a typed set-up error', async () => {
    vi.stubGlobal('crypto', undefined);
    const { body, headers } = delivery(messageEvent(), { secrets: ['whsec_no_crypto'] });
    const result = await webBuild.safeVerifyAsync(body, headers, {
      ...baseOptions,
      secret: 'whsec_no_crypto',
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.reason).toBe('invalid_options');
      expect(result.error.message).toMatch(/Web Crypto/);
    }
  });
});

describe("the Web build's synchronous names", () => {
  const { body, headers } = delivery();

  it.each([
    ['verify', () => webBuild.verify(body, headers, baseOptions), 'verifyAsync'],
    [
      'verifySignature',
      () => webBuild.verifySignature(body, 't=1,v1=00', baseOptions),
      'verifySignatureAsync',
    ],
    ['sign', () => webBuild.sign(body, { secret: 'k' }), 'signAsync'],
  ])('%s throws a typed set-up error naming the async function to use', (_name, call, replacement) => {
    expect(call).toThrow(expect.objectContaining({ reason: 'invalid_options' }));
    expect(call).toThrow(`await ${replacement}()`);
  });

  it('safeVerify keeps its promise: no throw, a typed result naming safeVerifyAsync', () => {
    const result = webBuild.safeVerify(body, headers, baseOptions);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.reason).toBe('invalid_options');
      expect(result.error.message).toContain('await safeVerifyAsync()');
    }
  });
});
