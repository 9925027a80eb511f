/**
 * The status each peer refusal is answered with: one table, so a code never travels with two statuses
 * (PEER-PROTOCOL.md lists them with the checks that give them).
 */
export const PEER_REFUSAL_STATUS = {
  invalid_request: 400,
  bad_signature: 401,
  stale_request: 401,
  replayed: 401,
  not_a_contact: 403,
  not_permitted: 403,
  declined: 403,
  unknown_identity: 404,
  not_requested: 409,
  rate_limited: 429,
  requests_full: 429,
} as const;

/** Refusal codes a peer answers with, in `{ error: { code, message } }`. */
export type PeerRefusalCode = keyof typeof PEER_REFUSAL_STATUS;

/**
 * A refusal answered to a peer as `{ error: { code, message } }`, with its code's status; a 429 also says
 * when to retry, as `retry_after` in the body and `Retry-After`, as on /v1.
 */
export class PeerRefusal extends Error {
  readonly status: number;

  constructor(
    readonly code: PeerRefusalCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.status = PEER_REFUSAL_STATUS[code];
  }
}
