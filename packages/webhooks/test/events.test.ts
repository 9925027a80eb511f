import {
  EVENT_TYPES,
  type EventOfType,
  eventEnvelopeSchema,
  eventSchemas,
  isEventOfType,
  isEventType,
  isKnownEvent,
  parseEvent,
  RESERVED_EVENT_TYPES,
  type UnknownEvent,
  type WebhookEvent,
  WebhookVerificationError,
} from '@svc-kit/webhooks';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CONTACT, messageEvent } from './support/fixtures';

/** A valid `data` for every catalogue type. */
const DATA: Record<(typeof EVENT_TYPES)[number], Record<string, unknown>> = {
  'message.received': { thread_id: 'thr_1', contact: CONTACT },
  'contact.requested': { contact: CONTACT },
  'contact.approved': { contact: CONTACT },
  'contact.rejected': { contact: CONTACT },
  'contact.blocked': { contact: CONTACT },
  'contact.unblocked': { contact: CONTACT },
  'contact.removed': { contact: CONTACT },
  'contact.updated': { contact: CONTACT },
  'integration.created': { integration: 'github' },
  'integration.authorized': { integration: 'github' },
  'integration.exposure_updated': { integration: 'github', version: 3 },
  'integration.deleted': { integration: 'github' },
};

describe('the event schemas', () => {
  it('have one data schema per catalogue type, and no other', () => {
    expect(Object.keys(eventSchemas).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each(EVENT_TYPES)('parse a valid %s event', (type) => {
    const event = parseEvent(messageEvent({ type, data: DATA[type] }));
    expect(event).toEqual(messageEvent({ type, data: DATA[type] }));
  });

  it.each(EVENT_TYPES)('refuse a %s event with an empty data object', (type) => {
    expect(() => parseEvent(messageEvent({ type, data: {} }))).toThrow(
      expect.objectContaining({ reason: 'invalid_payload' }),
    );
  });

  it('keep extra fields in data and in the envelope (forward compatible)', () => {
    const event = parseEvent(
      messageEvent({ data: { ...DATA['message.received'], preview_id: 'p_1' }, schema_version: 2 }),
    );
    expect(event.data).toEqual({ ...DATA['message.received'], preview_id: 'p_1' });
    expect(event.schema_version).toBe(2);
  });

  it('pass an unknown type through with its data untouched', () => {
    const raw = messageEvent({ type: 'thread.archived', data: { thread_id: 't', anything: [1, { a: 2 }] } });
    const event = parseEvent(raw);
    expect(event).toEqual(raw);
    expect(isEventType(event.type)).toBe(false);
  });

  it('treat reserved names as unknown types today', () => {
    for (const type of RESERVED_EVENT_TYPES) {
      expect(parseEvent(messageEvent({ type, data: {} })).type).toBe(type);
    }
  });

  it('still check the envelope of an unknown type', () => {
    expect(() => parseEvent(messageEvent({ type: 'thread.archived', data: null }))).toThrow(
      WebhookVerificationError,
    );
    expect(() => parseEvent(messageEvent({ type: '' }))).toThrow(WebhookVerificationError);
  });

  it('accept created_at as integer milliseconds only', () => {
    expect(eventEnvelopeSchema.safeParse(messageEvent({ created_at: 0 })).success).toBe(true);
    for (const created_at of [-1, 1.5, Number.MAX_SAFE_INTEGER + 2, '1', null]) {
      expect(eventEnvelopeSchema.safeParse(messageEvent({ created_at })).success).toBe(false);
    }
  });

  it('do not let a __proto__ key change the prototype of the event', () => {
    const json = `{"id":"evt_1","type":"x.y","created_at":1,"identity":"i","data":{"__proto__":{"polluted":1}},"__proto__":{"polluted":1}}`;
    const event = parseEvent(JSON.parse(json));
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(event.data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((event as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    [{ ...messageEvent(), id: 'msg_1' }, 'id: expected an event id starting with evt_'],
    [messageEvent({ created_at: 1.5 }), 'created_at: expected an integer, got a fractional number'],
    [messageEvent({ created_at: '1' }), 'created_at: expected number, got string'],
    [messageEvent({ identity: '' }), 'identity: expected a non-empty string'],
    [{ ...messageEvent(), identity: undefined }, 'identity: expected string, got undefined'],
    [messageEvent({ data: [] }), 'data: expected record, got an array'],
    [[messageEvent()], '(body): expected object, got an array'],
    [
      messageEvent({ data: { thread_id: 't', contact: 'alice' } }),
      'message.received: data.contact: expected a contact digest of the form sha256:<64 lowercase hex digits>',
    ],
    [
      messageEvent({ type: 'integration.exposure_updated', data: { integration: 'gh', version: -1 } }),
      'integration.exposure_updated: data.version: expected at least 0',
    ],
  ])('say what is wrong, where, and what was found (%#)', (value, detail) => {
    expect(() => parseEvent(value)).toThrow(`The body is JSON but not a valid event: ${detail}.`);
  });

  it('refuse values that are not objects with a typed error', () => {
    for (const value of [null, undefined, 1, 'evt', [], true]) {
      expect(() => parseEvent(value)).toThrow(expect.objectContaining({ reason: 'invalid_payload' }));
    }
  });

  it('turn a hostile object into a typed error', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        ownKeys() {
          throw new Error('boom');
        },
      },
    );
    expect(() => parseEvent(hostile)).toThrow(expect.objectContaining({ reason: 'invalid_payload' }));
  });
});

describe('event types', () => {
  it('narrow fully after isKnownEvent, and leave newer types in the else branch', () => {
    const events = [parseEvent(messageEvent()), parseEvent(messageEvent({ type: 'thread.archived' }))];
    const seen: string[] = [];
    for (const event of events as WebhookEvent[]) {
      if (isKnownEvent(event)) {
        switch (event.type) {
          case 'message.received':
            expectTypeOf(event.data.thread_id).toEqualTypeOf<string>();
            seen.push(event.data.thread_id);
            break;
          case 'integration.exposure_updated':
            expectTypeOf(event.data.version).toEqualTypeOf<number>();
            break;
        }
      } else {
        expectTypeOf(event).toEqualTypeOf<UnknownEvent>();
        seen.push(event.type);
      }
    }
    expect(seen).toEqual(['thr_8f2k', 'thread.archived']);
  });

  it('narrow with isEventOfType, for one type or several', () => {
    const event: WebhookEvent = parseEvent(
      messageEvent({ type: 'contact.blocked', data: DATA['contact.blocked'] }),
    );
    expect(isEventOfType(event, 'message.received')).toBe(false);
    expect(isEventOfType(event, ['contact.approved', 'contact.blocked'])).toBe(true);
    if (isEventOfType(event, ['contact.approved', 'contact.blocked'])) {
      expectTypeOf(event.type).toEqualTypeOf<'contact.approved' | 'contact.blocked'>();
      expectTypeOf(event.data.contact).toEqualTypeOf<string>();
    }
  });

  it('give EventOfType the data of its type', () => {
    expectTypeOf<EventOfType<'contact.approved'>['data']['contact']>().toEqualTypeOf<string>();
    expectTypeOf<EventOfType<'integration.deleted'>['type']>().toEqualTypeOf<'integration.deleted'>();
  });
});
