import { describe, expect, it } from 'vitest';
import { localTargetHint, reachOf } from '../../src/domain/local-targets.js';

const reachable = reachOf({
  production: false,
  host: '0.0.0.0',
  publicUrl: undefined,
  publicOrigin: undefined,
  trustedProxies: ['10.0.0.1'],
});
const production = reachOf({
  production: true,
  host: '127.0.0.1',
  publicUrl: 'https://svc.example',
  publicOrigin: undefined,
  trustedProxies: [],
});

describe('the refusal of a target on localhost', () => {
  it('names the mode that would admit it and why this service is not in it, without setting values', () => {
    const hint = localTargetHint('http://localhost:3000/webhooks', 'webhooks', false, reachable);
    expect(hint).toBe(
      ' (a webhook receiver on localhost is accepted by a local sandbox only (this service may be reached ' +
        'from elsewhere: SVC_TRUSTED_PROXIES names a reverse proxy; HOST listens beyond loopback), or with ' +
        'SVC_ALLOW_LOCALHOST_WEBHOOKS=1 outside production)',
    );
    expect(hint).not.toContain('10.0.0.1');
    expect(localTargetHint('http://127.0.0.1:3000/peer/v1', 'peers', false, reachable)).toContain(
      'SVC_ALLOW_LOCALHOST_PEERS=1',
    );
    expect(localTargetHint('https://LOCALHOST/mcp', 'integrations', false, reachable)).toContain(
      'SVC_ALLOW_LOCALHOST_INTEGRATIONS=1',
    );
  });

  it('offers no opt-in in production', () => {
    expect(localTargetHint('http://localhost:3000/webhooks', 'webhooks', false, production)).toBe(
      ' (a webhook receiver on localhost is accepted by a local sandbox only; never with NODE_ENV=production)',
    );
  });

  it('states the rule in general for a service built without configuration', () => {
    expect(localTargetHint('http://localhost:3000/', 'webhooks', false, undefined)).toContain(
      'one listening on loopback, with no SVC_PUBLIC_URL, SVC_TRUSTED_PROXIES or NODE_ENV=production',
    );
  });

  it('adds nothing for a target elsewhere, an admitted one, or a URL that does not parse', () => {
    expect(localTargetHint('http://localhost:3000/', 'webhooks', true, reachable)).toBe('');
    expect(localTargetHint('http://hooks.example.com/', 'webhooks', false, reachable)).toBe('');
    expect(localTargetHint('http://10.0.0.1/', 'webhooks', false, reachable)).toBe('');
    expect(localTargetHint('not a url', 'webhooks', false, reachable)).toBe('');
  });
});
