// The deliveries every cell receives, signed here with node:crypto by the rule of the spec (part 6.3), not
// with the SDK, so that a bug shared by the SDK's signer and verifier cannot pass unseen.
import { createHmac, randomUUID } from 'node:crypto';

/** The secret every app reads from SVC_WEBHOOK_SECRET. */
export const SECRET = 'whsec_matrix-current-secret';
/** The new secret of the README's rotation snippet, SVC_WEBHOOK_SECRET_NEW (SECRET is the old one). */
export const NEW_SECRET = 'whsec_matrix-rotated-secret';
const WRONG_SECRET = 'whsec_matrix-some-other-endpoint';
const SKEW_SECONDS = 360;

function v1(secret, timestamp, body) {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

function event() {
  const id = `evt_matrix_${randomUUID().replaceAll('-', '')}`;
  return {
    id,
    type: 'message.received',
    created_at: Date.now(),
    identity: 'matrix-tenant',
    data: { thread_id: 'thr_matrix', contact: `sha256:${'cd'.repeat(32)}` },
  };
}

/** A delivery of a fresh event; `sign` returns the `v1` values for its `t` and body. */
function delivery({
  offsetSeconds = 0,
  sign = (t, body) => [v1(SECRET, t, body)],
  alter = (body) => body,
} = {}) {
  const payload = event();
  const body = JSON.stringify(payload);
  const t = String(Math.floor(Date.now() / 1000) + offsetSeconds);
  return {
    body: alter(body),
    headers: {
      'content-type': 'application/json',
      'x-service-signature': `t=${t},${sign(t, body)
        .map((value) => `v1=${value}`)
        .join(',')}`,
      'x-service-event-id': payload.id,
      'x-service-event-type': payload.type,
      'x-service-delivery': `dlv_${randomUUID()}`,
    },
  };
}

const accepted = { status: 200 };
const refused = (status, reason) => ({ status, reason });

/**
 * The cases, each a list of requests to one cell: the route, the delivery, and the answer expected. Every
 * route answers JSON; a refusal carries `error.reason`. `/webhooks` is the README's quickstart for the
 * framework, `/verify` its first snippet (the synchronous `verify`), `/rotation` a receiver given two
 * secrets, `/parsed` the framework's JSON parser placed before the SDK.
 */
export function cases() {
  const both = (make, expected) => [
    { route: '/webhooks', ...make(), expected },
    { route: '/verify', ...make(), expected },
  ];
  return [
    { name: 'valid', requests: both(() => delivery(), accepted) },
    {
      name: 'tampered',
      requests: both(
        () => delivery({ alter: (body) => body.replace('thr_matrix', 'thr_forged') }),
        refused(401, 'no_matching_signature'),
      ),
    },
    {
      name: 'wrong secret',
      requests: both(
        () => delivery({ sign: (t, body) => [v1(WRONG_SECRET, t, body)] }),
        refused(401, 'no_matching_signature'),
      ),
    },
    {
      name: 'stale',
      requests: both(() => delivery({ offsetSeconds: -SKEW_SECONDS }), refused(401, 'timestamp_too_old')),
    },
    {
      name: 'future',
      requests: both(() => delivery({ offsetSeconds: SKEW_SECONDS }), refused(401, 'timestamp_too_new')),
    },
    {
      name: 'two v1',
      requests: both(
        // A rotation seen from a receiver that holds only the old secret: the new one's `v1` comes first.
        () => delivery({ sign: (t, body) => [v1(NEW_SECRET, t, body), v1(SECRET, t, body)] }),
        accepted,
      ),
    },
    {
      name: 'two secrets',
      requests: [
        { route: '/rotation', ...delivery({ sign: (t, body) => [v1(SECRET, t, body)] }), expected: accepted },
        {
          route: '/rotation',
          ...delivery({ sign: (t, body) => [v1(NEW_SECRET, t, body)] }),
          expected: accepted,
        },
      ],
    },
    {
      name: 'parsed body',
      requests: [
        { route: '/parsed', ...delivery(), expected: refused(400, 'body_was_parsed') },
        {
          route: '/verify',
          ...delivery(),
          parse: true,
          expected: refused(400, 'body_was_parsed'),
        },
      ],
    },
  ];
}
