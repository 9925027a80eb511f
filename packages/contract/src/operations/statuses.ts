/**
 * Refusal statuses, composed per operation. 401, 403 and 404 can answer any call; 400 comes with
 * validated arguments (a body or a query); 422 with idempotency; 429 with a call to a contact's peer.
 * 503 comes where the answer depends on something that may be away for a moment: the peer's answer
 * (request, tools, call), or a first call with the same Idempotency-Key that is still running.
 */
export const ALWAYS = [401, 403, 404] as const;
export const VALIDATED = [400, 401, 403, 404] as const;
export const VALIDATED_OUTBOUND = [400, 401, 403, 404, 429] as const;
export const OUTBOUND = [401, 403, 404, 429] as const;
export const IDEMPOTENT_OUTBOUND = [401, 403, 404, 422, 429, 503] as const;
export const VALIDATED_IDEMPOTENT_OUTBOUND = [400, 401, 403, 404, 422, 429, 503] as const;
export const IDEMPOTENT = [401, 403, 404, 422, 503] as const;
export const PEER_ANSWER = [401, 403, 404, 429, 503] as const;
export const VALIDATED_PEER_ANSWER = [400, 401, 403, 404, 429, 503] as const;
