import { describe, expect, it } from 'vitest';
import {
  checkTriggeredEvent,
  endpointReceives,
  eventBody,
  excerptOf,
  sampleEventData,
} from '../src/index.js';

const endpoint = { status: 'active', events: [] as string[], created_at: 100 };
const event = { type: 'contact.approved', created_at: 100 };

describe('the fan-out rule both the mock and the service apply', () => {
  it('an active endpoint created no later than the event, its filter empty or naming the type, webhooks on', () => {
    expect(endpointReceives(endpoint, event, true)).toBe(true);
    expect(endpointReceives({ ...endpoint, events: ['contact.approved'] }, event, true)).toBe(true);
    expect(endpointReceives(endpoint, event, false)).toBe(false);
    expect(endpointReceives({ ...endpoint, status: 'paused' }, event, true)).toBe(false);
    expect(endpointReceives({ ...endpoint, created_at: 101 }, event, true)).toBe(false);
    expect(endpointReceives({ ...endpoint, events: ['contact.removed'] }, event, true)).toBe(false);
  });

  it('the body keeps the spec’s field order whatever order it is given in', () => {
    const body = eventBody({ data: { contact: 'c' }, identity: 'i', created_at: 1, type: 't', id: 'evt_1' });
    expect(body).toBe('{"id":"evt_1","type":"t","created_at":1,"identity":"i","data":{"contact":"c"}}');
  });

  it('a test event carries exactly the catalogue’s fields', () => {
    const contact = `sha256:${'a'.repeat(64)}`;
    expect(checkTriggeredEvent('contact.approved', { contact })).toEqual({
      ok: true,
      type: 'contact.approved',
      data: { contact },
    });
    expect(checkTriggeredEvent('contact.approved', { contact, extra: 1 })).toMatchObject({ ok: false });
    expect(checkTriggeredEvent('message.sent', {})).toMatchObject({
      ok: false,
      reason: /unknown event type/,
    });
    for (const type of ['message.received', 'contact.blocked', 'integration.exposure_updated'] as const) {
      const data = sampleEventData(type, { contact, threadId: 'thr_1' });
      expect(checkTriggeredEvent(type, data).ok).toBe(true);
    }
  });

  it('the excerpt keeps at most the bytes asked, never half a character', () => {
    const bytes = new TextEncoder().encode(`a${'€'.repeat(200)}`);
    expect(excerptOf(bytes)).toBe(`a${'€'.repeat(166)}`);
    expect(excerptOf(new TextEncoder().encode('😀😀'), 6)).toBe('😀');
    expect(
      new TextEncoder().encode(excerptOf(new Uint8Array(600).fill(0xff))).byteLength,
    ).toBeLessThanOrEqual(500);
  });
});
