import { Writable } from 'node:stream';
import { isCrossSiteLogin, isCrossSiteStateChange } from '@svc-kit/contract';
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { mintApiKey, parseApiKey, secretMatches } from '../../src/domain/api-key.js';
import { requestFingerprint } from '../../src/domain/idempotency.js';
import { keyPermissions, scopesBeyondMember } from '../../src/domain/permissions.js';
import { isSteppedUp, STEP_UP_WINDOW_MS } from '../../src/domain/step-up.js';
import { workspaceRefusal } from '../../src/domain/workspace-state.js';
import { loggerOptions } from '../../src/http/logger.js';

describe('API keys', () => {
  it('parse back what is minted, and the stored hash verifies only the real secret', () => {
    const key = mintApiKey();
    const parsed = parseApiKey(key.token);
    expect(parsed?.id).toBe(key.id);
    expect(secretMatches(parsed!.secret, key.secretHash)).toBe(true);
    expect(secretMatches('0'.repeat(64), key.secretHash)).toBe(false);
    expect(key.secretHash).not.toContain(parsed!.secret);
  });

  it('never parse arbitrary text as a key, and never throw', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseApiKey(text);
        if (parsed) expect(text).toBe(`svc_${parsed.id}_${parsed.secret}`);
      }),
    );
  });
});

describe('permissions', () => {
  it('a key holds at most the intersection of its scopes and its member', () => {
    const all = ['service:workspace:admin', 'service:contacts:read', 'service:contacts:manage'] as const;
    fc.assert(
      fc.property(fc.subarray([...all]), fc.subarray([...all, 'service:bogus']), (member, scopes) => {
        for (const permission of keyPermissions(member, scopes)) {
          expect(member).toContain(permission);
          expect(scopes).toContain(permission);
        }
        expect(scopesBeyondMember(member, scopes).every((s) => !member.includes(s as never))).toBe(true);
      }),
    );
  });
});

describe('step-up', () => {
  it('needs MFA and a re-authentication within 15 minutes', () => {
    const now = 10_000_000;
    expect(isSteppedUp(true, now - STEP_UP_WINDOW_MS, now)).toBe(true);
    expect(isSteppedUp(true, now - STEP_UP_WINDOW_MS - 1, now)).toBe(false);
    expect(isSteppedUp(false, now, now)).toBe(false);
    expect(isSteppedUp(true, null, now)).toBe(false);
    expect(isSteppedUp(true, now + 1000, now)).toBe(false);
  });
});

describe('cross-site check', () => {
  const own = 'https://svc.example';
  it.each([
    // Nothing shows the call is same-origin: refused.
    ['POST', {}, true],
    ['POST', { origin: own }, false],
    ['POST', { secFetchSite: 'same-origin' }, false],
    ['POST', { secFetchSite: 'same-origin', origin: own }, false],
    ['POST', { secFetchSite: 'none' }, true],
    ['POST', { origin: 'null' }, true],
    ['POST', { secFetchSite: 'cross-site', origin: own }, true],
    ['POST', { origin: 'https://evil.example' }, true],
    ['DELETE', { secFetchSite: 'cross-site' }, true],
    ['PATCH', { secFetchSite: 'same-site' }, true],
    ['POST', { secFetchSite: 'same-origin', origin: 'https://evil.example' }, true],
    ['GET', { origin: 'https://evil.example', secFetchSite: 'cross-site' }, false],
  ] as const)('%s with %j → cross-site %s', (method, headers, expected) => {
    expect(isCrossSiteStateChange(method, headers, own)).toBe(expected);
  });

  it('lets a log-in without browser headers through, but not one a browser says came from elsewhere', () => {
    expect(isCrossSiteLogin({}, own)).toBe(false);
    expect(isCrossSiteLogin({ origin: own }, own)).toBe(false);
    expect(isCrossSiteLogin({ origin: 'https://evil.example' }, own)).toBe(true);
    expect(isCrossSiteLogin({ secFetchSite: 'cross-site' }, own)).toBe(true);
  });
});

describe('idempotency fingerprint', () => {
  it('ignores key order and tells different arguments apart', () => {
    const a = requestFingerprint({
      operationId: 'op',
      params: { slug: 's' },
      query: undefined,
      body: { a: 1, b: [1, { c: 2, d: 3 }] },
    });
    const b = requestFingerprint({
      operationId: 'op',
      params: { slug: 's' },
      query: undefined,
      body: { b: [1, { d: 3, c: 2 }], a: 1 },
    });
    expect(a).toBe(b);
    expect(
      requestFingerprint({
        operationId: 'op',
        params: { slug: 't' },
        query: undefined,
        body: { a: 1, b: [1, { c: 2, d: 3 }] },
      }),
    ).not.toBe(a);
    expect(
      requestFingerprint({
        operationId: 'op2',
        params: { slug: 's' },
        query: undefined,
        body: { a: 1, b: [1, { c: 2, d: 3 }] },
      }),
    ).not.toBe(a);
  });
});

describe('workspace state', () => {
  it('names deletion hold before suspension', () => {
    expect(workspaceRefusal({ suspended: false, deletion_hold: false })).toBeUndefined();
    expect(workspaceRefusal({ suspended: true, deletion_hold: false })).toBe('workspace_suspended');
    expect(workspaceRefusal({ suspended: true, deletion_hold: true })).toBe('workspace_deletion_hold');
  });
});

describe('log redaction', () => {
  it('censors credentials wherever they are logged', () => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _e, cb) {
        out += chunk.toString();
        cb();
      },
    });
    const logger = pino(loggerOptions('info'), sink);
    logger.info({
      req: { headers: { authorization: 'Bearer svc_a_b', cookie: '__Host-svc_session=tok' } },
      secret: 'whsec_1',
      endpoint: { secret: 'whsec_2', secret_enc: 'v1.x' },
      member: { password_hash: 'scrypt.x' },
    });
    for (const leaked of ['svc_a_b', 'tok', 'whsec_1', 'whsec_2', 'v1.x', 'scrypt.x'])
      expect(out).not.toContain(leaked);
    expect(out).toContain('[redacted]');
  });
});
