/**
 * An API key, `svc_<id>_<secret>`: 16 lowercase hex digits that find the key and 64 that prove possession
 * (the two groups capture them). A bearer token of any other shape is malformed, and a malformed key is
 * answered exactly like a missing one (401 `unauthenticated`).
 */
export const API_KEY_PATTERN = /^svc_([0-9a-f]{16})_([0-9a-f]{64})$/;

/** A contact's fingerprint: `sha256:` and 64 lowercase hex digits (the hash of its public key). */
export const FINGERPRINT_PATTERN = /^sha256:[0-9a-f]{64}$/;

// The scheme name is case-insensitive (RFC 9110, 11.1): `bearer` and `BEARER` are `Bearer`.
const BEARER = /^Bearer (\S+)$/i;

/**
 * The token of an `Authorization: Bearer <token>` header, or `undefined` when the header has another scheme,
 * no token, or more than one word after the scheme. Says nothing about the token's shape: check that with
 * `API_KEY_PATTERN`.
 */
export function bearerToken(authorization: string): string | undefined {
  return BEARER.exec(authorization)?.[1];
}
