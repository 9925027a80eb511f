import { describe, expect, it } from 'vitest';
import {
  API_KEY_PATTERN,
  authHeaderProblem,
  bearerToken,
  canonicalJson,
  checkWebhookUrlShape,
  defaultIntegrationSlug,
  destinationHost,
  EXPOSURE_LIMITS,
  endpointAsShown,
  exposureProblem,
  FAILURES_BEFORE_PAUSE,
  FINGERPRINT_PATTERN,
  hostCapRefusal,
  ID_PREFIXES,
  INTEGRATION_PERMISSION,
  INTEGRATION_SLUG_PATTERN,
  idempotencyArgumentsText,
  isRememberedRefusal,
  isStrangerCall,
  MAX_ENDPOINTS_PER_HOST,
  newWebhookEndpoint,
  operations,
  PRESET_PERMISSIONS,
  permissionsOfPreset,
  readsFilterWindow,
  resumedFailureRun,
} from '../src/index.js';

describe('shared rules', () => {
  it('canonical JSON sorts keys at every level and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: undefined }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"z":1}]},"b":1}',
    );
    const one = idempotencyArgumentsText({
      operationId: 'x',
      params: { a: 1, b: 2 },
      query: undefined,
      body: {},
    });
    const two = idempotencyArgumentsText({ operationId: 'x', params: { b: 2, a: 1 }, query: null, body: {} });
    expect(one).toBe(two);
    expect(
      idempotencyArgumentsText({ operationId: 'y', params: { a: 1, b: 2 }, query: null, body: {} }),
    ).not.toBe(one);
  });

  it('remembers final refusals of idempotent calls, never a 429 or a 5xx', () => {
    expect([400, 403, 404].every(isRememberedRefusal)).toBe(true);
    expect([429, 500, 503, 200].some(isRememberedRefusal)).toBe(false);
  });

  it('every outbound call to a party that is not an active contact is a stranger call', () => {
    expect(isStrangerCall(undefined)).toBe(true);
    expect(['pending_out', 'pending_in', 'blocked'].every(isStrangerCall)).toBe(true);
    expect(isStrangerCall('active')).toBe(false);
  });

  it('a status or event type read goes through the window and is budgeted; an event id is a lookup', () => {
    expect(readsFilterWindow({ status: 'failed' })).toBe(true);
    expect(readsFilterWindow({ event_type: 'contact.approved' })).toBe(true);
    expect(readsFilterWindow({ status: 'failed', event_type: 'contact.approved' })).toBe(true);
    expect(readsFilterWindow({})).toBe(false);
    expect(readsFilterWindow({ event_id: 'evt_1' })).toBe(false);
    expect(readsFilterWindow({ event_id: 'evt_1', status: 'failed', event_type: 'contact.approved' })).toBe(
      false,
    );
  });

  it('presets replace the switches; every settable preset has an entry', () => {
    const settable = operations.updateContact.body.shape.preset.def.innerType.options;
    expect(Object.keys(PRESET_PERMISSIONS).sort()).toEqual([...settable].sort());
    expect(permissionsOfPreset('close')).toContain(INTEGRATION_PERMISSION);
    const copy = permissionsOfPreset('basic');
    copy.push('x');
    expect(PRESET_PERMISSIONS.basic).not.toContain('x');
  });

  it('the default integration slug is the whole host, and always a valid slug', () => {
    expect(defaultIntegrationSlug('https://tools.example.org/mcp')).toBe('tools-example-org');
    expect(defaultIntegrationSlug(`https://${'a'.repeat(40)}.example.org/`)).toBe('a'.repeat(32));
    expect(defaultIntegrationSlug('https://x/')).toBe('mcp-x');
    for (const url of ['https://tools.example.org/', 'https://x/', 'https://a--b.example/']) {
      expect(defaultIntegrationSlug(url)).toMatch(INTEGRATION_SLUG_PATTERN);
    }
  });

  it('exposure limits: 500 entries, 256 KiB, a tool once, a valid mapped name', () => {
    const many = Array.from({ length: EXPOSURE_LIMITS.maxEntries + 1 }, (_, i) => ({
      tool: `t${i}`,
      mode: 'passthrough',
    }));
    expect(exposureProblem(many)).toMatch(/at most 500/);
    expect(exposureProblem(many.slice(0, 500))).toBeUndefined();
    expect(
      exposureProblem([
        { tool: 'a', mode: 'passthrough' },
        { tool: 'a', mode: 'mapped' },
      ]),
    ).toMatch(/second time/);
    expect(exposureProblem([{ tool: 'a', mode: 'mapped', name: 'has space' }])).toMatch(/name must be/);
    expect(exposureProblem([{ tool: 'a', mode: 'mapped', description: 3 }])).toMatch(/must be a string/);
    const big = Array.from({ length: 3 }, (_, i) => ({
      tool: `t${i}`,
      mode: 'passthrough',
      note: 'x'.repeat(100_000),
    }));
    expect(exposureProblem(big)).toMatch(/256 KiB/);
  });

  it('webhook URL rules that need no DNS', () => {
    const reason = (url: string, allowLocalhost = false) => {
      const verdict = checkWebhookUrlShape(url, { allowLocalhost });
      return verdict.ok ? undefined : verdict.reason;
    };
    expect(reason('https://hooks.example.com/x')).toBeUndefined();
    expect(reason('http://hooks.example.com/x')).toMatch(/https/);
    expect(reason('https://u:p@hooks.example.com/')).toMatch(/credentials/);
    expect(reason('https://127.1/')).toMatch(/IP address/);
    expect(reason('https://[::1]/')).toMatch(/IP address/);
    expect(reason('https://intranet/')).toMatch(/fully qualified/);
    expect(reason('https://printer.local/')).toMatch(/private network/);
    expect(reason('https://db.internal./')).toMatch(/private network/);
    expect(reason(`https://a.example.com/${'x'.repeat(2048)}`)).toMatch(/2048/);
    expect(reason('not a url')).toMatch(/absolute/);
    expect(reason('http://localhost:3000/hook')).toMatch(/https/);
    expect(reason('http://localhost:3000/hook', true)).toBeUndefined();
    // Well-known ports belong to other protocols: refused without DNS, so by the mock as well.
    for (const port of ['22', '25', '1023'])
      expect(reason(`https://hooks.example.com:${port}/x`)).toMatch(/port/);
    for (const port of ['443', '1024', '8443', '65535'])
      expect(reason(`https://hooks.example.com:${port}/x`)).toBeUndefined();
  });

  it('endpoints per host: compared by normalised hostname; listeners and local receivers are not counted', () => {
    expect(destinationHost('https://Hooks.Example.COM.:8443/a?b')).toBe('hooks.example.com');
    expect(destinationHost('listen://ws_1/abc')).toBeUndefined();
    expect(destinationHost('http://localhost:3000/hooks')).toBeUndefined();
    const full = Array.from({ length: MAX_ENDPOINTS_PER_HOST }, (_, i) => `https://victim.example.com/${i}`);
    expect(hostCapRefusal('https://VICTIM.example.com:9443/x', full)).toMatch(/victim\.example\.com/);
    expect(hostCapRefusal('https://a.victim.example.com/x', full)).toBeUndefined();
    expect(hostCapRefusal('https://victim.example.com/x', full.slice(1))).toBeUndefined();
    const local = Array.from({ length: 10 }, (_, i) => `http://127.0.0.1:${3000 + i}/`);
    expect(hostCapRefusal('http://127.0.0.1:4000/', local)).toBeUndefined();
  });

  it('a resume keeps the failure run, one short of the pause at most', () => {
    expect(resumedFailureRun(FAILURES_BEFORE_PAUSE)).toBe(FAILURES_BEFORE_PAUSE - 1);
    expect(resumedFailureRun(5)).toBe(5);
    expect(resumedFailureRun(0)).toBe(0);
  });

  it('delivery ids are dlv_ for everyone', () => {
    expect(ID_PREFIXES.webhookDelivery).toBe('dlv');
  });

  it('an integration credential may not set a header the connection sets, in any case', () => {
    expect(authHeaderProblem('Authorization')).toBeUndefined();
    expect(authHeaderProblem('X-Api-Key')).toBeUndefined();
    expect(authHeaderProblem('Host')).toMatch(/auth\.header cannot be Host/);
    expect(authHeaderProblem('TRANSFER-ENCODING')).toMatch(/cannot be/);
    expect(authHeaderProblem('Mcp-Session-Id')).toMatch(/cannot be/);
  });

  it('bearer tokens: the scheme in any case, one token, nothing else', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('BEARER abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer  abc')).toBeUndefined();
    expect(bearerToken('Bearer abc def')).toBeUndefined();
  });

  it('API key and fingerprint shapes', () => {
    const key = `svc_${'a'.repeat(16)}_${'b'.repeat(64)}`;
    expect(API_KEY_PATTERN.exec(key)?.slice(1)).toEqual(['a'.repeat(16), 'b'.repeat(64)]);
    expect(API_KEY_PATTERN.test(key.toUpperCase())).toBe(false);
    expect(API_KEY_PATTERN.test(`${key}0`)).toBe(false);
    expect(FINGERPRINT_PATTERN.test(`sha256:${'0'.repeat(64)}`)).toBe(true);
    expect(FINGERPRINT_PATTERN.test(`sha256:${'0'.repeat(63)}`)).toBe(false);
    expect(FINGERPRINT_PATTERN.test(`sha512:${'0'.repeat(64)}`)).toBe(false);
  });
});

describe('an endpoint as shown', () => {
  it('shows rotating_until while the overlap lasts and null from its end on', () => {
    const stored = { ...newWebhookEndpoint({ id: 'whk_1', url: 'u', events: [] }, 0), rotating_until: 1_000 };
    expect(endpointAsShown(stored, 999).rotating_until).toBe(1_000);
    expect(endpointAsShown(stored, 1_000).rotating_until).toBeNull();
    expect(endpointAsShown(stored, 1_000)).toEqual({ ...stored, rotating_until: null });
  });
});
