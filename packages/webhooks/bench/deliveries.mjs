// The deliveries every contender verifies: a realistic event body padded to an exact size, signed once
// with node:crypto in each contender's own header format.
import { createHash, createHmac } from 'node:crypto';

export const SECRET = 'whsec_bench_4f1c8a2e9b7d3f6a0c5e8b1d4a7f2c9e';
/** standardwebhooks keys are base64; this one decodes to the same bytes as SECRET's text. */
export const STANDARD_SECRET = `whsec_${Buffer.from(SECRET, 'utf8').toString('base64')}`;

/**
 * A `message.received` event whose JSON text is exactly `size` bytes: real envelope fields, plus a
 * padding field inside `data` (which the schema keeps, like any field added later).
 * @param {number} size
 */
export function eventBody(size) {
  const event = {
    id: 'evt_01JGXD4K7N0Q3T6W9Z2C5F8H1K',
    type: 'message.received',
    created_at: 1_767_225_599_000,
    identity: 'support-bot',
    data: {
      thread_id: 'thr_01JGXD4J5M8P1S4V7Y0B3E6H9L',
      contact: `sha256:${createHash('sha256').update('contact:bench').digest('hex')}`,
      padding: '',
    },
  };
  const room = size - Buffer.byteLength(JSON.stringify(event));
  if (room < 0) throw new Error(`a ${size}-byte body cannot hold the envelope`);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789 ';
  event.data.padding = Array.from({ length: room }, (_, i) => alphabet[(i * 7) % alphabet.length]).join('');
  const text = JSON.stringify(event);
  if (Buffer.byteLength(text) !== size) throw new Error('padding arithmetic is off');
  return text;
}

/**
 * @param {string} text the body
 * @param {number} t signing time, Unix seconds
 */
export function delivery(text, t) {
  const body = Buffer.from(text, 'utf8');
  const v1 = createHmac('sha256', SECRET).update(`${t}.`).update(body).digest('hex');
  const signature = `t=${t},v1=${v1}`;
  const msgId = 'msg_01JGXD4K7N0Q3T6W9Z2C5F8H1K';
  const standardSig = createHmac('sha256', Buffer.from(SECRET, 'utf8'))
    .update(`${msgId}.${t}.`)
    .update(body)
    .digest('base64');
  return {
    text,
    body,
    signature,
    /** Every header of a delivery, as Node hands them over (lower-case names). */
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signature,
      'x-service-event-id': 'evt_01JGXD4K7N0Q3T6W9Z2C5F8H1K',
      'x-service-event-type': 'message.received',
      'x-service-delivery': 'dlv_01JGXD4M0R3U6X9A2D5G8J1M4P',
    },
    standardHeaders: {
      'webhook-id': msgId,
      'webhook-timestamp': String(t),
      'webhook-signature': `v1,${standardSig}`,
    },
  };
}
