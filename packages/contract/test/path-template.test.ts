import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandPath, operations, toColonPath } from '../src/index.js';

describe('path templates', () => {
  it('fills each placeholder with its percent-encoded value', () => {
    expect(expandPath(operations.setTrust.path, { slug: 'ops', fingerprint: 'fp/..?x=1' })).toBe(
      '/v1/identities/ops/contacts/fp%2F..%3Fx%3D1/trust',
    );
    expect(expandPath(operations.listWebhooks.path)).toBe('/v1/workspace/webhooks');
  });

  it('throws on a missing value', () => {
    expect(() => expandPath(operations.deleteWebhook.path, {})).toThrow(/missing path parameter "id"/);
  });

  it('refuses a value that is not well-formed Unicode with a TypeError', () => {
    expect(() => expandPath('/v1/workspace/webhooks/{id}', { id: 'a\uD800' })).toThrow(TypeError);
  });

  it('round-trips any well-formed value through one path segment', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'grapheme' }), (id) => {
        const path = expandPath('/v1/workspace/webhooks/{id}', { id });
        const segment = path.split('/')[4];
        expect(path.split('/')).toHaveLength(5);
        expect(decodeURIComponent(segment ?? '')).toBe(id);
      }),
    );
  });

  it('gives the colon form routers use', () => {
    expect(toColonPath(operations.setExposure.path)).toBe('/v1/identities/:slug/integrations/:name/exposure');
  });
});
