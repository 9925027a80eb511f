// Vectors for the `X-Service-Signature` check: header syntax, timestamp tolerance, secret rotation and
// the exact bytes the HMAC covers. Every failing case has exactly one fault, so its reason is unambiguous
// whatever order an implementation runs its checks in.
import { base64, bodyBytes, utf8 } from './body.mjs';
import { BASE_EVENT, DEFAULT_TOLERANCE_SECONDS, eventHeaders, NOW_MS, SECRETS, T } from './fixtures.mjs';
import { hmacV1, signatureHeader } from './oracle.mjs';

/** @typedef {import('./body.mjs').BodySpec} BodySpec */
/** @typedef {{ valid: true } | { valid: false, reason: string }} Outcome */

/** @type {Outcome} */
const VALID = { valid: true };
/** @param {string} reason @returns {Outcome} */
const fail = (reason) => ({ valid: false, reason });

const { primary, rotatedNew, rotatedOld, unrelated } = SECRETS;
const envelopeText = JSON.stringify(BASE_EVENT);
const envelope = utf8(envelopeText);
const envelopeHeaders = eventHeaders(BASE_EVENT, 'dlv_01JGXA7R0A1B2C3D4E5F6G7H8J');
/** A valid `v1` for the base envelope at `T` under the primary secret. */
const goodV1 = hmacV1(primary, String(T), bodyBytes(envelope));
/** @param {string} prefix */
const withGoodV1 = (prefix) => `${prefix}v1=${goodV1}`;

/**
 * @typedef {object} CaseInput
 * @property {string} name
 * @property {string} description
 * @property {Outcome} expected
 * @property {string[]} [secrets]
 * @property {BodySpec} [body]
 * @property {string | null} [header] set explicitly for hand-made headers; `null` means absent
 * @property {{ timestamp: number, secrets: string[] }} [signedWith] the service signer's inputs
 * @property {number} [nowMs]
 * @property {number} [toleranceSeconds]
 * @property {Outcome} [expectedEvent] outcome of a full verify when the signature passes
 */

/** @param {CaseInput} input */
function signatureCase(input) {
  const body = input.body ?? envelope;
  const signedWith =
    input.header === undefined ? (input.signedWith ?? { timestamp: T, secrets: [primary] }) : null;
  const header = signedWith ? signatureHeader(bodyBytes(body), signedWith) : (input.header ?? null);
  const expectedEvent = input.expected.valid ? (input.expectedEvent ?? VALID) : input.expected;
  return {
    name: input.name,
    description: input.description,
    secrets: input.secrets ?? [primary],
    signature_header: header,
    body,
    now_ms: input.nowMs ?? NOW_MS,
    tolerance_seconds: input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    expected: input.expected,
    event_headers: envelopeHeaders,
    expected_event: expectedEvent,
    signed_with: signedWith,
  };
}

const notAnEvent = fail('invalid_payload');
const notJson = fail('invalid_json');

/** @type {CaseInput[]} */
const basics = [
  {
    name: 'valid-simple',
    description: 'A delivery as the service sends it, received 42.25 s after signing.',
    expected: VALID,
  },
  {
    name: 'valid-body-as-received-not-reparsed',
    description:
      'The body is pretty-printed JSON and was signed that way; the HMAC covers the bytes as sent.',
    body: utf8(`${JSON.stringify(BASE_EVENT, null, 2)}\n`),
    expected: VALID,
  },
];

const sec = 1000;
/** @type {CaseInput[]} */
const tolerance = [
  {
    name: 'tolerance-exactly-300s-old',
    description: 'Receiver clock exactly 300 s after t: the edge of the window is inside it.',
    nowMs: (T + 300) * sec,
    expected: VALID,
  },
  {
    name: 'tolerance-exactly-300s-new',
    description: 'Receiver clock exactly 300 s before t (the sender clock runs ahead): still inside.',
    nowMs: (T - 300) * sec,
    expected: VALID,
  },
  {
    name: 'tolerance-301s-old',
    description: 'Receiver clock 301 s after t.',
    nowMs: (T + 301) * sec,
    expected: fail('timestamp_too_old'),
  },
  {
    name: 'tolerance-301s-new',
    description: 'Receiver clock 301 s before t.',
    nowMs: (T - 301) * sec,
    expected: fail('timestamp_too_new'),
  },
  {
    name: 'tolerance-clock-truncated-to-seconds-old',
    description:
      'The clock is truncated to whole seconds before comparing (t has whole-second resolution): 300.999 s after t counts as 300 s.',
    nowMs: (T + 300) * sec + 999,
    expected: VALID,
  },
  {
    name: 'tolerance-clock-truncated-to-seconds-new',
    description:
      'Truncation goes towards the past: 1 ms before the 300 s edge is second T-301, so the delivery is too new.',
    nowMs: (T - 300) * sec - 1,
    expected: fail('timestamp_too_new'),
  },
  {
    name: 'tolerance-custom-60-inside',
    description: 'Receiver configured with a 60 s tolerance, delivery exactly 60 s old.',
    toleranceSeconds: 60,
    nowMs: (T + 60) * sec,
    expected: VALID,
  },
  {
    name: 'tolerance-custom-60-outside',
    description: 'Receiver configured with a 60 s tolerance, delivery 61 s old.',
    toleranceSeconds: 60,
    nowMs: (T + 61) * sec,
    expected: fail('timestamp_too_old'),
  },
  {
    name: 'tolerance-custom-600-accepts-what-300-refuses',
    description: 'A 600 s tolerance accepts a delivery 599 s old.',
    toleranceSeconds: 600,
    nowMs: (T + 599) * sec,
    expected: VALID,
  },
];

const rotation = { timestamp: T, secrets: [rotatedNew, rotatedOld] };
const rotationOldFirst = { timestamp: T, secrets: [rotatedOld, rotatedNew] };
/** @type {CaseInput[]} */
const rotations = [
  {
    name: 'rotation-receiver-holds-new',
    description: 'Two v1 values (new secret first); the receiver already switched to the new secret.',
    signedWith: rotation,
    secrets: [rotatedNew],
    expected: VALID,
  },
  {
    name: 'rotation-receiver-holds-old',
    description: 'Two v1 values (new secret first); the receiver still holds only the old secret.',
    signedWith: rotation,
    secrets: [rotatedOld],
    expected: VALID,
  },
  {
    name: 'rotation-receiver-holds-both',
    description: 'Two v1 values; the receiver holds both secrets (new listed first).',
    signedWith: rotation,
    secrets: [rotatedNew, rotatedOld],
    expected: VALID,
  },
  {
    name: 'rotation-receiver-holds-both-old-listed-first',
    description: 'Two v1 values; the receiver lists its secrets in the other order.',
    signedWith: rotation,
    secrets: [rotatedOld, rotatedNew],
    expected: VALID,
  },
  {
    name: 'rotation-receiver-holds-neither',
    description: 'Two v1 values; the receiver holds an unrelated secret.',
    signedWith: rotation,
    secrets: [unrelated],
    expected: fail('no_matching_signature'),
  },
  {
    name: 'rotation-old-first-receiver-holds-new',
    description: 'The v1 values arrive old first; order in the header does not matter.',
    signedWith: rotationOldFirst,
    secrets: [rotatedNew],
    expected: VALID,
  },
  {
    name: 'rotation-old-first-receiver-holds-old',
    description: 'The v1 values arrive old first; the receiver holds the old secret.',
    signedWith: rotationOldFirst,
    secrets: [rotatedOld],
    expected: VALID,
  },
  {
    name: 'rotation-over-receiver-holds-only-old',
    description: 'The overlap has ended (one v1, new secret); a receiver that never switched is refused.',
    signedWith: { timestamp: T, secrets: [rotatedNew] },
    secrets: [rotatedOld],
    expected: fail('no_matching_signature'),
  },
];

/** @type {CaseInput[]} */
const schemes = [
  {
    name: 'unknown-schemes-ignored-around-valid-v1',
    description: 'v0 and v2 entries (even with non-hex values and extra "=") are skipped; the v1 verifies.',
    header: `${withGoodV1(`t=${T},v0=${'0'.repeat(64)},`)},v2=c2lnbmF0dXJlLXYy==`,
    expected: VALID,
  },
  {
    name: 'unknown-schemes-only',
    description: 'Only v0 and v2 entries: there is no v1 to check, so the header is not one we understand.',
    header: `t=${T},v0=${goodV1},v2=${goodV1}`,
    expected: fail('malformed_header'),
  },
  {
    name: 'timestamp-after-v1',
    description: 'Entries may come in any order; t after v1 is accepted.',
    header: `v1=${goodV1},t=${T}`,
    expected: VALID,
  },
];

/** @type {CaseInput[]} */
const lenientSyntax = [
  {
    name: 'header-spaces-around-commas',
    description:
      'Spaces or tabs around entries are allowed (HTTP optional whitespace; proxies that merge headers add ", ").',
    header: withGoodV1(`t=${T} , \t`),
    expected: VALID,
  },
  {
    name: 'header-v1-upper-case-hex',
    description: 'Hex digits are case-insensitive. The service emits lower case; upper case is accepted.',
    header: `t=${T},v1=${goodV1.toUpperCase()}`,
    expected: VALID,
  },
  {
    name: 'header-ill-formed-v1-beside-valid-v1',
    description:
      'A v1 value that is not 64 hex digits is skipped when another v1 is well-formed; that one verifies.',
    header: `t=${T},v1=${'z'.repeat(64)},v1=${goodV1}`,
    expected: VALID,
  },
];

const tampered = envelopeText.replace('support-bot', 'support-bou');
const reordered = JSON.stringify({
  type: BASE_EVENT.type,
  id: BASE_EVENT.id,
  created_at: BASE_EVENT.created_at,
  identity: BASE_EVENT.identity,
  data: BASE_EVENT.data,
});
const signedHeader = signatureHeader(bodyBytes(envelope), { timestamp: T, secrets: [primary] });
/** @type {CaseInput[]} */
const tampering = [
  {
    name: 'tampered-body-one-byte',
    description: 'One byte of the body changed after signing (support-bot → support-bou).',
    body: utf8(tampered),
    header: signedHeader,
    expected: fail('no_matching_signature'),
  },
  {
    name: 'tampered-timestamp',
    description:
      't moved 1 s later without re-signing: the HMAC covers t, so the signature no longer matches.',
    header: `t=${T + 1},v1=${goodV1}`,
    expected: fail('no_matching_signature'),
  },
  {
    name: 'reserialized-json-whitespace',
    description: 'The receiver re-serialised the parsed body with indentation: the bytes differ.',
    body: utf8(JSON.stringify(BASE_EVENT, null, 2)),
    header: signedHeader,
    expected: fail('no_matching_signature'),
  },
  {
    name: 'reserialized-json-key-order',
    description: 'Same JSON value with keys in another order: the bytes differ.',
    body: utf8(reordered),
    header: signedHeader,
    expected: fail('no_matching_signature'),
  },
  {
    name: 'secret-trailing-whitespace',
    description:
      'Signed with the secret; the receiver holds the secret plus a trailing space. Secrets are used byte for byte.',
    secrets: [`${primary} `],
    expected: fail('no_matching_signature'),
  },
  {
    name: 'secret-non-ascii',
    description: 'A secret with non-ASCII characters: the key is its UTF-8 bytes.',
    secrets: ['whsec_clé-secrète-ü-✓'],
    signedWith: { timestamp: T, secrets: ['whsec_clé-secrète-ü-✓'] },
    expected: VALID,
  },
];

const crlfEvent = JSON.stringify(BASE_EVENT, null, 2).replaceAll('\n', '\r\n');
const nfd = 'Cafe\u0301 de\u0301ja\u0300 vu';
/** @type {CaseInput[]} */
const bodies = [
  {
    name: 'body-unicode-emoji',
    description: 'UTF-8 body with emoji (4-byte sequences, surrogate pairs in UTF-16 strings).',
    body: utf8('{"note":"deploy done 🚀🎉 👩‍💻"}'),
    expected: VALID,
    expectedEvent: notAnEvent,
  },
  {
    name: 'body-unicode-combining-characters',
    description: 'Decomposed accents (e + U+0301): signed as is, must not be normalised before hashing.',
    body: utf8(`{"note":"${nfd}"}`),
    expected: VALID,
    expectedEvent: notAnEvent,
  },
  {
    name: 'body-unicode-normalised-after-signing',
    description: 'The same text in composed form (NFC) is different bytes from what was signed (NFD).',
    body: utf8(`{"note":"${nfd.normalize('NFC')}"}`),
    header: signatureHeader(bodyBytes(utf8(`{"note":"${nfd}"}`)), { timestamp: T, secrets: [primary] }),
    expected: fail('no_matching_signature'),
  },
  {
    name: 'body-unicode-non-bmp',
    description: 'Characters outside the Basic Multilingual Plane (𝄞 U+1D11E, 𠜎 U+2070E).',
    body: utf8('{"note":"𝄞 𠜎 𝔘𝔫𝔦𝔠𝔬𝔡𝔢"}'),
    expected: VALID,
    expectedEvent: notAnEvent,
  },
  {
    name: 'body-crlf-line-endings',
    description: 'An envelope with CRLF line endings, signed with them.',
    body: utf8(crlfEvent),
    expected: VALID,
  },
  {
    name: 'body-crlf-converted-to-lf',
    description: 'Signed with CRLF line endings, delivered with LF: different bytes.',
    body: utf8(crlfEvent.replaceAll('\r\n', '\n')),
    header: signatureHeader(bodyBytes(utf8(crlfEvent)), { timestamp: T, secrets: [primary] }),
    expected: fail('no_matching_signature'),
  },
  {
    name: 'body-empty',
    description: 'An empty body signed over "<t>." alone: the signature verifies, the body is not JSON.',
    body: utf8(''),
    expected: VALID,
    expectedEvent: notJson,
  },
  {
    name: 'body-not-utf8-bytes',
    description: 'Bytes that are not valid UTF-8: the HMAC covers the raw bytes, never a decoded string.',
    body: base64(Uint8Array.from([0xff, 0xfe, 0x00, 0x7b, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x82, 0x0a])),
    expected: VALID,
    expectedEvent: notJson,
  },
  {
    name: 'body-utf8-bom',
    description:
      'An envelope preceded by a UTF-8 byte order mark, signed with it: the HMAC covers the mark, the JSON parser ignores it.',
    body: utf8(`\uFEFF${envelopeText}`),
    expected: VALID,
  },
  {
    name: 'body-1-mib',
    description: 'A 1 MiB body (1,048,576 × "a").',
    body: { repeat: 'a', times: 1_048_576 },
    expected: VALID,
    expectedEvent: notJson,
  },
];

const leadingZeros = `000${T}`;
/** @type {CaseInput[]} */
const timestampText = [
  {
    name: 'timestamp-leading-zeros-signed-as-received',
    description: 't has leading zeros and the HMAC was computed over that same text: valid.',
    header: `t=${leadingZeros},v1=${hmacV1(primary, leadingZeros, bodyBytes(envelope))}`,
    expected: VALID,
  },
  {
    name: 'timestamp-leading-zeros-signed-canonical',
    description:
      't has leading zeros but the HMAC covers the text without them: the receiver must hash t as received.',
    header: `t=${leadingZeros},v1=${goodV1}`,
    expected: fail('no_matching_signature'),
  },
];

/** @type {Array<[string, string, string | null, string]>} name, description, header, reason */
const malformed = [
  ['header-absent', 'No X-Service-Signature header at all.', null, 'missing_header'],
  ['header-empty', 'The header is present with an empty value.', '', 'missing_header'],
  ['header-no-timestamp', 'Only a v1 entry.', `v1=${goodV1}`, 'malformed_header'],
  ['header-no-v1', 'Only a t entry.', `t=${T}`, 'malformed_header'],
  ['header-t-not-digits', 't is letters.', withGoodV1('t=yesterday,'), 'malformed_header'],
  ['header-t-empty', 't has no value.', withGoodV1('t=,'), 'malformed_header'],
  ['header-t-negative', 't is negative.', withGoodV1(`t=-${T},`), 'malformed_header'],
  ['header-t-plus-sign', 't has a plus sign.', withGoodV1(`t=+${T},`), 'malformed_header'],
  ['header-t-decimal', 't has a fractional part.', withGoodV1(`t=${T}.5,`), 'malformed_header'],
  ['header-t-exponent', 't in exponent notation.', withGoodV1('t=1.7672256e9,'), 'malformed_header'],
  ['header-t-hex', 't in hexadecimal.', withGoodV1(`t=0x${T.toString(16)},`), 'malformed_header'],
  ['header-t-leading-space', 'A space inside the t value.', withGoodV1(`t= ${T},`), 'malformed_header'],
  ['header-t-duplicate', 't appears twice (same value).', withGoodV1(`t=${T},t=${T},`), 'malformed_header'],
  [
    'header-t-duplicate-different',
    't appears twice with different values.',
    withGoodV1(`t=${T},t=${T + 1},`),
    'malformed_header',
  ],
  ['header-v1-empty', 'v1 has no value.', `t=${T},v1=`, 'malformed_header'],
  [
    'header-v1-wrong-length',
    'v1 is well-formed hex but 62 digits, not the 64 of a SHA-256 digest.',
    `t=${T},v1=${goodV1.slice(0, 62)}`,
    'malformed_header',
  ],
  [
    'header-v1-not-hex',
    'v1 has characters outside 0-9a-f.',
    `t=${T},v1=${'z'.repeat(64)}`,
    'malformed_header',
  ],
  [
    'header-v1-odd-length',
    'v1 is hex of odd length.',
    `t=${T},v1=${goodV1.slice(0, 63)}`,
    'malformed_header',
  ],
  [
    'header-v1-base64',
    'v1 carries the digest in base64 instead of hex.',
    `t=${T},v1=${Buffer.from(goodV1, 'hex').toString('base64')}`,
    'malformed_header',
  ],
  ['header-part-without-equals', 'An entry with no "=".', withGoodV1(`t=${T},v1,`), 'malformed_header'],
  ['header-only-commas', 'Separators and nothing else.', ',,,', 'malformed_header'],
  ['header-empty-part', 'Two commas in a row.', withGoodV1(`t=${T},,`), 'malformed_header'],
  ['header-trailing-comma', 'A comma after the last entry.', `${withGoodV1(`t=${T},`)},`, 'malformed_header'],
  [
    'header-key-upper-case',
    'Keys are case-sensitive: "T=" and "V1=" are not t and v1.',
    `T=${T},V1=${goodV1}`,
    'malformed_header',
  ],
  ['header-whitespace-only', 'Blank characters only: the same as empty.', ' \t ', 'missing_header'],
  [
    'header-garbage-bytes',
    'Control characters and replacement characters.',
    '\u0000\u0001\u00ff\ufffd\u007f',
    'malformed_header',
  ],
  [
    'header-json',
    'A JSON object instead of the t=…,v1=… list.',
    `{"t":${T},"v1":"${goodV1}"}`,
    'malformed_header',
  ],
  [
    'header-extremely-long',
    'A 10 KiB header (t, then 150 v1 values, the valid one last): far beyond a real one (about 150 characters), refused unread.',
    `t=${T},${Array.from({ length: 150 }, (_, i) => `v1=${i.toString(16).padStart(64, '0')}`).join(',')},v1=${goodV1}`,
    'malformed_header',
  ],
  [
    'header-t-too-many-digits',
    't with 400 digits: not a time any clock can show.',
    withGoodV1(`t=${'9'.repeat(400)},`),
    'malformed_header',
  ],
];

/** @type {CaseInput[]} */
const configuration = [
  {
    name: 'config-empty-secret',
    description:
      'The receiver was configured with an empty secret: a set-up mistake, refused before any check.',
    secrets: [''],
    expected: fail('invalid_secret'),
  },
  {
    name: 'config-tolerance-zero',
    description: 'A tolerance of 0 s would refuse every delivery: a set-up mistake.',
    toleranceSeconds: 0,
    expected: fail('invalid_options'),
  },
];

export function signatureCases() {
  return [
    ...basics,
    ...tolerance,
    ...rotations,
    ...schemes,
    ...lenientSyntax,
    ...tampering,
    ...bodies,
    ...timestampText,
    ...malformed.map(([name, description, header, reason]) => ({
      name,
      description,
      header,
      expected: fail(reason),
    })),
    ...configuration,
  ].map(signatureCase);
}
