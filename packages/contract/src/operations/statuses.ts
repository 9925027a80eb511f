/**
 * Refusal statuses, composed per operation. 400, 401, 403 and 404 can answer any call (400: arguments
 * that do not validate, including a query or a body sent to an operation that takes none); 422 with
 * idempotency; 429 with a call to a contact's peer, or with a read a budget of the workspace bounds
 * (listWebhookDeliveries through its filter window). 503 comes where the answer depends on something that may be away for a moment: the
 * peer's answer (request, tools, call), or a first call with the same Idempotency-Key that is still
 * running. 502 where the answer is an upstream server's and it failed (authorizeIntegration).
 */
export const VALIDATED = [400, 401, 403, 404] as const;
export const VALIDATED_UPSTREAM = [400, 401, 403, 404, 502] as const;
export const VALIDATED_OUTBOUND = [400, 401, 403, 404, 429] as const;
export const VALIDATED_BUDGETED = [400, 401, 403, 404, 429] as const;
export const VALIDATED_IDEMPOTENT_OUTBOUND = [400, 401, 403, 404, 422, 429, 503] as const;
export const VALIDATED_IDEMPOTENT = [400, 401, 403, 404, 422, 503] as const;
export const VALIDATED_PEER_ANSWER = [400, 401, 403, 404, 429, 503] as const;

/**
 * Statuses any request can meet whatever its operation, answered with the same error body: 408 when the
 * request is not received in time, 429 when its address has sent too many refused credentials lately or its
 * workspace too many requests (the reference service's guessing limit and request budget), 431 when its headers are too large, 503 when the service's database
 * gives the request no connection in time (busy or out of reach).
 */
export const TRANSPORT_REFUSALS = [408, 429, 431, 503] as const;
