/**
 * Refusal statuses, composed per operation. 401, 403 and 404 can answer any call; 400 comes with
 * validated arguments (a body or a query); 422 with idempotency; 429 with a call to a contact's peer.
 */
export const ALWAYS = [401, 403, 404] as const;
export const VALIDATED = [400, 401, 403, 404] as const;
export const VALIDATED_OUTBOUND = [400, 401, 403, 404, 429] as const;
export const OUTBOUND = [401, 403, 404, 429] as const;
export const IDEMPOTENT_OUTBOUND = [401, 403, 404, 422, 429] as const;
export const VALIDATED_IDEMPOTENT_OUTBOUND = [400, 401, 403, 404, 422, 429] as const;
export const IDEMPOTENT = [401, 403, 404, 422] as const;
