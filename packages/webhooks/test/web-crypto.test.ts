// The Web build's use of Web Crypto (keys imported once per secret, a clear error where it is missing), and
// its synchronous path, which needs none.
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

describe("the Web build's synchronous functions", () => {
  it('verify, verifySignature, safeVerify and sign work without Web Crypto (pure-JS SHA-256)', async () => {
    const { body, headers } = delivery();
    const header = headers['x-service-signature'];
    // No Web Crypto at all: the synchronous path must not touch it.
    vi.stubGlobal('crypto', undefined);
    expect(webBuild.verify(body, headers, baseOptions).id).toBe(messageEvent().id);
    expect(() => webBuild.verifySignature(body, header, baseOptions)).not.toThrow();
    expect(webBuild.safeVerify(body, headers, baseOptions).ok).toBe(true);
    const forged = webBuild.safeVerify(body.replace('thr_', 'thr_x'), headers, baseOptions);
    expect(forged.ok || forged.error.reason).toBe('no_matching_signature');
    vi.unstubAllGlobals();
    const signOptions = { secret: 'k', timestamp: 1_700_000_000 };
    expect(webBuild.sign(body, signOptions)).toBe(await webBuild.signAsync(body, signOptions));
  });
});
