// Vectors for what happens after the signature verifies: the body must be JSON, an event envelope, of the
// right shape for its type, and agree with the X-Service-Event-Id and X-Service-Event-Type headers.
// Every body is correctly signed, so a failure can only come from the payload.
import { bodyBytes, utf8 } from './body.mjs';
import { DEFAULT_TOLERANCE_SECONDS, digest, eventHeaders, NOW_MS, SECRETS, T } from './fixtures.mjs';
import { signatureHeader } from './oracle.mjs';

/** @typedef {import('./body.mjs').BodySpec} BodySpec */

const CREATED_AT = T * 1000 - 1_500;

/**
 * One valid `data` object per event type. These follow the event catalogue of the receiver SDK (data is
 * ids only; the SDK keeps fields it does not know).
 * @type {Record<string, Record<string, unknown>>}
 */
const DATA_BY_TYPE = {
  'message.received': { thread_id: 'thr_01JGXB0000MSGRECEIVED0001', contact: digest('contact:alice') },
  'contact.requested': { contact: digest('contact:bob') },
  'contact.approved': { contact: digest('contact:carol') },
  'contact.rejected': { contact: digest('contact:dave') },
  'contact.blocked': { contact: digest('contact:erin') },
  'contact.unblocked': { contact: digest('contact:frank') },
  'contact.removed': { contact: digest('contact:grace') },
  'contact.updated': { contact: digest('contact:heidi') },
  'integration.created': { integration: 'github' },
  'integration.authorized': { integration: 'github' },
  'integration.exposure_updated': { integration: 'github', version: 3 },
  'integration.deleted': { integration: 'linear' },
};

/** @param {number} n */
const eventId = (n) => `evt_01JGXB${String(n).padStart(20, '0')}`;

/**
 * @param {number} n
 * @param {string} type
 * @param {unknown} data
 * @returns {Record<string, unknown>}
 */
const envelope = (n, type, data) => ({
  id: eventId(n),
  type,
  created_at: CREATED_AT + n,
  identity: 'support-bot',
  data,
});

/**
 * @typedef {object} PayloadInput
 * @property {string} name
 * @property {string} description
 * @property {string} body the exact body text
 * @property {{ id: string, type: string }} headerEvent what the event id and type headers say
 * @property {string} [reason] absent for a valid case
 */

/** @param {PayloadInput} input @param {number} index */
function payloadCase(input, index) {
  const body = utf8(input.body);
  const signedWith = { timestamp: T, secrets: [SECRETS.primary] };
  const delivery = `dlv_01JGXC${String(index).padStart(20, '0')}`;
  return {
    name: input.name,
    description: input.description,
    secrets: [SECRETS.primary],
    headers: {
      'x-service-signature': signatureHeader(bodyBytes(body), signedWith),
      ...eventHeaders(input.headerEvent, delivery),
    },
    body,
    now_ms: NOW_MS,
    tolerance_seconds: DEFAULT_TOLERANCE_SECONDS,
    expected:
      input.reason === undefined
        ? { valid: true, event: JSON.parse(input.body) }
        : { valid: false, reason: input.reason },
    signed_with: signedWith,
  };
}

/**
 * A case whose headers agree with the body's `id` and `type`.
 * @param {string} name
 * @param {string} description
 * @param {Record<string, unknown>} event
 * @param {string} [reason]
 * @returns {PayloadInput}
 */
function consistent(name, description, event, reason) {
  const headerEvent = { id: String(event.id), type: String(event.type) };
  return { name, description, body: JSON.stringify(event), headerEvent, ...(reason ? { reason } : {}) };
}

/** @param {string} name @param {string} description @param {Record<string, unknown>} event */
const invalidPayload = (name, description, event) => consistent(name, description, event, 'invalid_payload');

const message = (/** @type {number} */ n) =>
  envelope(n, 'message.received', DATA_BY_TYPE['message.received']);
const messageWith = (/** @type {number} */ n, /** @type {Record<string, unknown>} */ data) =>
  envelope(n, 'message.received', { ...DATA_BY_TYPE['message.received'], ...data });
/** @param {number} n @param {string} key */
const without = (n, key) => {
  const { [key]: _removed, ...rest } = message(n);
  return rest;
};

export function payloadCases() {
  const types = Object.keys(DATA_BY_TYPE);
  /** @type {PayloadInput[]} */
  const valid = types.map((type, i) =>
    consistent(
      `event-${type.replace(/[._]/g, '-')}`,
      `A valid ${type} event.`,
      envelope(i + 1, type, DATA_BY_TYPE[type] ?? {}),
    ),
  );
  valid.push(
    consistent(
      'event-unknown-future-type',
      'A type this receiver does not know yet: delivered as is, never refused, so that new event types do not break old receivers.',
      envelope(100, 'workspace.renamed', { workspace: 'wks_01JGXB0000000000000000001', name_changed: true }),
    ),
    consistent(
      'event-extra-fields-kept',
      'Fields the receiver does not know, at the top level and in data, are accepted and kept.',
      { ...messageWith(101, { preview_available: false }), schema_version: 2 },
    ),
  );

  const n = 200;
  /** @type {PayloadInput[]} */
  const invalid = [
    invalidPayload('envelope-id-without-evt-prefix', 'The event id lacks the evt_ prefix.', {
      ...message(n),
      id: 'msg_01JGXB0000000000000000001',
    }),
    invalidPayload('envelope-id-prefix-only', 'The event id is the bare prefix "evt_".', {
      ...message(n + 1),
      id: 'evt_',
    }),
    invalidPayload('envelope-id-missing', 'No id field.', without(n + 2, 'id')),
    invalidPayload('envelope-type-missing', 'No type field.', without(n + 3, 'type')),
    invalidPayload('envelope-type-not-string', 'type is a number.', { ...message(n + 4), type: 7 }),
    invalidPayload('envelope-created-at-fraction', 'created_at is not an integer.', {
      ...message(n + 5),
      created_at: CREATED_AT + 0.5,
    }),
    invalidPayload('envelope-created-at-string', 'created_at is a string of digits.', {
      ...message(n + 6),
      created_at: String(CREATED_AT),
    }),
    invalidPayload('envelope-created-at-negative', 'created_at is before the epoch.', {
      ...message(n + 7),
      created_at: -1,
    }),
    invalidPayload('envelope-created-at-missing', 'No created_at field.', without(n + 8, 'created_at')),
    invalidPayload('envelope-identity-missing', 'No identity field.', without(n + 9, 'identity')),
    invalidPayload('envelope-identity-empty', 'identity is an empty string.', {
      ...message(n + 10),
      identity: '',
    }),
    invalidPayload('envelope-data-missing', 'No data field.', without(n + 11, 'data')),
    invalidPayload('envelope-data-array', 'data is an array.', {
      ...message(n + 12),
      data: [DATA_BY_TYPE['message.received']],
    }),
    invalidPayload('envelope-data-null', 'data is null.', { ...message(n + 13), data: null }),
    invalidPayload('envelope-data-string', 'data is a string.', { ...message(n + 14), data: 'thr_1' }),
    invalidPayload(
      'message-received-contact-wrong-algorithm',
      'The contact digest names another algorithm.',
      messageWith(n + 15, { contact: digest('contact:alice').replace('sha256:', 'sha1:') }),
    ),
    invalidPayload(
      'message-received-contact-no-prefix',
      'The contact digest has no "sha256:" prefix.',
      messageWith(n + 16, { contact: digest('contact:alice').slice(7) }),
    ),
    invalidPayload(
      'message-received-contact-short',
      'The contact digest has 63 hex digits.',
      messageWith(n + 17, { contact: digest('contact:alice').slice(0, -1) }),
    ),
    invalidPayload(
      'message-received-contact-upper-case',
      'The contact digest is in upper-case hex.',
      messageWith(n + 18, { contact: `sha256:${digest('contact:alice').slice(7).toUpperCase()}` }),
    ),
    invalidPayload(
      'message-received-contact-not-hex',
      'The contact digest is not hex.',
      messageWith(n + 19, { contact: `sha256:${'g'.repeat(64)}` }),
    ),
    invalidPayload(
      'message-received-contact-missing',
      'message.received without contact.',
      envelope(n + 20, 'message.received', { thread_id: 'thr_1' }),
    ),
    invalidPayload(
      'message-received-thread-missing',
      'message.received without thread_id.',
      envelope(n + 21, 'message.received', { contact: digest('contact:alice') }),
    ),
    invalidPayload(
      'contact-event-bad-digest',
      'A contact event whose contact is not a digest.',
      envelope(n + 22, 'contact.approved', { contact: 'alice@example.com' }),
    ),
    invalidPayload(
      'exposure-updated-version-not-integer',
      'integration.exposure_updated with a fractional version.',
      envelope(n + 23, 'integration.exposure_updated', { integration: 'github', version: 1.5 }),
    ),
  ];
  invalid.push(
    {
      name: 'body-json-array',
      description: 'The body is a JSON array.',
      body: '[]',
      headerEvent: { id: eventId(n + 24), type: 'message.received' },
      reason: 'invalid_payload',
    },
    {
      name: 'body-json-null',
      description: 'The body is the JSON literal null.',
      body: 'null',
      headerEvent: { id: eventId(n + 25), type: 'message.received' },
      reason: 'invalid_payload',
    },
  );

  const m = 300;
  /** @type {PayloadInput[]} */
  const mismatch = [
    {
      name: 'header-event-id-mismatch',
      description: 'X-Service-Event-Id names another event than the signed body.',
      body: JSON.stringify(message(m)),
      headerEvent: { id: eventId(m + 1), type: 'message.received' },
      reason: 'header_mismatch',
    },
    {
      name: 'header-event-type-mismatch',
      description: 'X-Service-Event-Type names another type than the signed body.',
      body: JSON.stringify(message(m + 2)),
      headerEvent: { id: eventId(m + 2), type: 'contact.approved' },
      reason: 'header_mismatch',
    },
  ];

  /** @type {PayloadInput[]} */
  const notJson = [
    {
      name: 'body-not-json',
      description: 'Plain text, correctly signed: the signature passes and parsing fails.',
      body: 'event=message.received&id=evt_1',
      headerEvent: { id: eventId(400), type: 'message.received' },
      reason: 'invalid_json',
    },
    {
      name: 'body-truncated-json',
      description: 'An envelope cut short, correctly signed.',
      body: JSON.stringify(message(401)).slice(0, -2),
      headerEvent: { id: eventId(401), type: 'message.received' },
      reason: 'invalid_json',
    },
  ];

  return [...valid, ...invalid, ...mismatch, ...notJson].map(payloadCase);
}
