import { EVENT_TYPES } from '@svc-kit/webhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWebhooks } from '../../snippets/events/typed-handlers';
import { signedDelivery } from '../support/deliveries';

const SECRET = 'whsec_docs_events';
const CONTACT = `sha256:${'0f'.repeat(32)}`;

let log: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

function event(type: string, data: Record<string, unknown>, id = `evt_${type.replace('.', '_')}`): string {
  return JSON.stringify({ id, type, created_at: Date.now(), identity: 'support-bot', data });
}

async function deliver(body: string): Promise<number> {
  const delivery = await signedDelivery(SECRET, body);
  const response = await createWebhooks(SECRET).handle({
    body: delivery.body,
    headers: delivery.headers,
    method: 'POST',
  });
  return response.status;
}

describe('typed handlers from the event catalogue page', () => {
  it('routes integration.exposure_updated with its typed data', async () => {
    expect(await deliver(event('integration.exposure_updated', { integration: 'crm', version: 7 }))).toBe(
      200,
    );
    expect(log).toHaveBeenCalledWith('exposure of crm is now version 7');
    expect(log).toHaveBeenCalledWith(
      'received integration.exposure_updated (evt_integration_exposure_updated)',
    );
  });

  it('routes both types of a list to one handler', async () => {
    expect(await deliver(event('contact.approved', { contact: CONTACT }))).toBe(200);
    expect(await deliver(event('contact.removed', { contact: CONTACT }))).toBe(200);
    expect(log).toHaveBeenCalledWith(`contact.approved: ${CONTACT}`);
    expect(log).toHaveBeenCalledWith(`contact.removed: ${CONTACT}`);
  });

  it('passes a type newer than the SDK to onAny only, and acknowledges it', async () => {
    const newer = 'thread.archived';
    expect(EVENT_TYPES).not.toContain(newer);
    expect(await deliver(event(newer, { thread_id: 'thr_1' }, 'evt_newer'))).toBe(200);
    expect(log.mock.calls).toEqual([[`received ${newer} (evt_newer)`]]);
  });

  it('refuses data that does not match the catalogue', async () => {
    expect(await deliver(event('contact.approved', { contact: 'not-a-digest' }))).toBe(400);
    expect(log).not.toHaveBeenCalled();
  });

  it('refuses a handler for a name outside the catalogue', () => {
    const webhooks = createWebhooks(SECRET);
    expect(() => webhooks.on('contact.aproved' as 'contact.approved', () => {})).toThrow(/not an event type/);
    expect(() => webhooks.on('message.sent' as 'message.received', () => {})).toThrow(/reserved/);
  });
});
