/**
 * Refusal statuses, composed per operation. 400, 401, 403 and 404 can answer any call (every operation
 * validates its path parameters and query, and refuses a body it does not take, e.g. on rotate or delete);
 * 422 comes with idempotency; 429 with a call to a contact's peer.
 * 503 comes where the answer depends on something that may be away for a moment: the peer's answer
 * (request, tools, call), or a first call with the same Idempotency-Key that is still running.
 */
export const ALWAYS = [400, 401, 403, 404] as const;
export const VALIDATED = [400, 401, 403, 404] as const;
export const VALIDATED_OUTBOUND = [400, 401, 403, 404, 429] as const;
export const OUTBOUND = [400, 401, 403, 404, 429] as const;
export const IDEMPOTENT_OUTBOUND = [400, 401, 403, 404, 422, 429, 503] as const;
export const VALIDATED_IDEMPOTENT_OUTBOUND = [400, 401, 403, 404, 422, 429, 503] as const;
export const IDEMPOTENT = [400, 401, 403, 404, 422, 503] as const;
export const PEER_ANSWER = [400, 401, 403, 404, 429, 503] as const;
export const VALIDATED_PEER_ANSWER = [400, 401, 403, 404, 429, 503] as const;
