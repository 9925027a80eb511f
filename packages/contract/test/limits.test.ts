import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { operations } from '../src/index.js';

const s = (n: number) => 'x'.repeat(n);
const ok = (result: { success: boolean }) => expect(result.success).toBe(true);
const refused = (result: { success: boolean }) => expect(result.success).toBe(false);

// Each limit of spec part 8: the boundary passes, one past it is refused.
describe('limits of part 8', () => {
  const {
    requestContact,
    setPetname,
    updateContact,
    createIntegration,
    authorizeIntegration,
    createWebhook,
  } = operations;

  it('card: 1 to 16384 chars', () => {
    refused(requestContact.body.safeParse({ card: '' }));
    ok(requestContact.body.safeParse({ card: s(1) }));
    ok(requestContact.body.safeParse({ card: s(16384) }));
    refused(requestContact.body.safeParse({ card: s(16385) }));
  });

  it('note: at most 1024 chars', () => {
    ok(requestContact.body.safeParse({ card: 'c', note: s(1024) }));
    refused(requestContact.body.safeParse({ card: 'c', note: s(1025) }));
  });

  it('petname: at most 64 chars', () => {
    ok(setPetname.body.safeParse({ petname: '' }));
    ok(setPetname.body.safeParse({ petname: s(64) }));
    refused(setPetname.body.safeParse({ petname: s(65) }));
  });

  it('permissions: at most 64 items of at most 96 chars', () => {
    ok(updateContact.body.safeParse({ permissions: Array.from({ length: 64 }, () => s(96)) }));
    refused(updateContact.body.safeParse({ permissions: Array.from({ length: 65 }, () => 'p') }));
    refused(updateContact.body.safeParse({ permissions: [s(97)] }));
  });

  it('catalogue: at most 64 chars', () => {
    ok(createIntegration.body.safeParse({ catalogue: s(64) }));
    refused(createIntegration.body.safeParse({ catalogue: s(65) }));
  });

  it('integration slug: 2 to 32 chars', () => {
    refused(createIntegration.body.safeParse({ slug: s(1) }));
    ok(createIntegration.body.safeParse({ slug: s(2) }));
    ok(createIntegration.body.safeParse({ slug: s(32) }));
    refused(createIntegration.body.safeParse({ slug: s(33) }));
  });

  it('auth.header: 1 to 64 chars; auth.value: 1 to 4096 chars', () => {
    const auth = (header: string, value: string) =>
      createIntegration.body.safeParse({ auth: { header, value } });
    refused(auth('', 'v'));
    ok(auth(s(1), s(1)));
    ok(auth(s(64), s(4096)));
    refused(auth(s(65), 'v'));
    refused(auth('h', ''));
    refused(auth('h', s(4097)));
  });

  it('auth.header is an HTTP token and auth.value a field value: no CR, LF, NUL or controls', () => {
    const auth = (header: string, value: string) =>
      createIntegration.body.safeParse({ auth: { header, value } });
    ok(auth('Authorization', 'Bearer sk_live_TOKEN'));
    ok(auth("X-Api-Key!#$%&'*+-.^_`|~", 'a\tb c'));
    for (const header of ['X Key', 'X-Key:', 'X\r\nInjected', 'X(1)', 'Ключ', 'X\u0000']) {
      refused(auth(header, 'v'));
    }
    for (const value of [
      'Bearer sk_live_TOKEN\rABC',
      'a\nb',
      'v\u0000',
      '\u0001',
      ' lead',
      'trail ',
      'del\u007f',
      'wide\u0100',
    ]) {
      refused(auth('X-Key', value));
    }
  });

  it('scope: at most 512 chars', () => {
    ok(authorizeIntegration.body.safeParse({ scope: s(512) }));
    refused(authorizeIntegration.body.safeParse({ scope: s(513) }));
  });

  it('webhook url: at least 1 char', () => {
    refused(createWebhook.body.safeParse({ url: '' }));
    ok(createWebhook.body.safeParse({ url: 'h' }));
  });

  it('deliveries limit: an integer from 1 to 100, given as digits or as a number', () => {
    const query = operations.listWebhookDeliveries.query;
    expect(query.parse({ limit: '1' })).toEqual({ limit: 1 });
    expect(query.parse({ limit: '100' })).toEqual({ limit: 100 });
    expect(query.parse({ limit: 42 })).toEqual({ limit: 42 });
    for (const limit of ['0', '101', '', ' 5', '5.0', '1e1', '0x10', '-1', 5.5, 0, 101, null]) {
      const result = query.safeParse({ limit });
      refused(result);
      expect(result.error?.issues[0]?.message).toBe('expected an integer from 1 to 100');
    }
    // Missing, it says it is required (what a URL typed without `?limit=` needs to hear).
    const missing = query.safeParse({});
    refused(missing);
    expect(missing.error?.issues[0]?.message).toBe('required, expected an integer from 1 to 100');
    refused(query.safeParse({ limit: '5', page: '2' }));
  });

  it('deliveries limit: any string is accepted exactly when it is digits worth 1 to 100', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer({ min: -5, max: 200 }).map(String)), (limit) => {
        const result = operations.listWebhookDeliveries.query.safeParse({ limit });
        const expected = /^[0-9]+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 100;
        expect(result.success).toBe(expected);
      }),
    );
  });
});

describe('request bodies', () => {
  it('createWebhook: events default to [], only sent events pass, reserved names say so', () => {
    const body = operations.createWebhook.body;
    expect(body.parse({ url: 'https://h.example' })).toMatchObject({ url: 'https://h.example', events: [] });
    ok(body.safeParse({ url: 'u', events: ['message.received', 'contact.approved'] }));
    const reserved = body.safeParse({ url: 'u', events: ['message.sent'] });
    refused(reserved);
    expect(reserved.error?.issues[0]?.message).toMatch(/reserved and not sent yet/);
    const unknown = body.safeParse({ url: 'u', events: ['message.recieved'] });
    expect(unknown.error?.issues[0]?.message).toMatch(/^not an event the service sends/);
    refused(body.safeParse({ url: 'u', events: 'message.received' }));
    refused(body.safeParse({ url: 'u', secret: 's' }));
  });

  it('approveContact: preset defaults to basic and must be a settable preset', () => {
    const body = operations.approveContact.body;
    expect(body.parse({})).toEqual({ preset: 'basic' });
    expect(body.parse({ preset: 'close' })).toEqual({ preset: 'close' });
    refused(body.safeParse({ preset: 'friend' }));
  });

  it('enumerations: status filter, webhook status, trust, transport, preset', () => {
    ok(operations.listContacts.query.safeParse({}));
    ok(operations.listContacts.query.safeParse({ status: 'pending_in' }));
    refused(operations.listContacts.query.safeParse({ status: 'pending' }));
    ok(operations.setWebhookStatus.body.safeParse({ status: 'paused' }));
    refused(operations.setWebhookStatus.body.safeParse({ status: 'deleted' }));
    refused(operations.setWebhookStatus.body.safeParse({}));
    ok(operations.setTrust.body.safeParse({ trust: 'may_instruct' }));
    refused(operations.setTrust.body.safeParse({ trust: 'full' }));
    ok(operations.createIntegration.body.safeParse({ transport: 'sse' }));
    refused(operations.createIntegration.body.safeParse({ transport: 'stdio' }));
    refused(operations.updateContact.body.safeParse({ preset: 'family' }));
  });

  it('createIntegration: every field optional, endpoint a URI, auth nullable', () => {
    ok(operations.createIntegration.body.safeParse({}));
    ok(operations.createIntegration.body.safeParse({ endpoint: 'https://mcp.example.com/x', auth: null }));
    refused(operations.createIntegration.body.safeParse({ endpoint: 'not a uri' }));
    refused(operations.createIntegration.body.safeParse({ auth: { header: 'X-Key' } }));
    refused(operations.createIntegration.body.safeParse({ auth: { header: 'h', value: 'v', extra: 1 } }));
  });

  it('callContactTool: tool required, arguments a free-form object', () => {
    const body = operations.callContactTool.body;
    ok(body.safeParse({ tool: 'search', arguments: { q: 'x', deep: { n: [1] } } }));
    ok(body.safeParse({ tool: 's' }));
    refused(body.safeParse({ tool: '' }));
    refused(body.safeParse({ tool: 's', arguments: ['x'] }));
  });

  it('refreshContact: an empty object, no fields allowed', () => {
    ok(operations.refreshContact.body.safeParse({}));
    refused(operations.refreshContact.body.safeParse({ force: true }));
    refused(operations.refreshContact.body.safeParse(undefined));
  });

  it('setExposure: entries of exposure entries', () => {
    const body = operations.setExposure.body;
    ok(body.safeParse({ entries: [] }));
    ok(body.safeParse({ entries: [{ tool: 'search', mode: 'agent', prompt: 'be brief' }] }));
    refused(body.safeParse({ entries: [{ tool: 'search' }] }));
    refused(body.safeParse({}));
  });

  it('no body parser throws, whatever JSON it is given', () => {
    const bodies = Object.values(operations).flatMap((op) => (op.body ? [op.body] : []));
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        for (const body of bodies) expect(() => body.safeParse(value)).not.toThrow();
      }),
    );
  });
});
