import { API_KEY_PATTERN } from '@svc-kit/contract';

/** The cookie a browser session rides on. */
export const SESSION_COOKIE = '__Host-svc_session';

/** A well-formed key for tests: live in every sandbox that has no seeded keys. */
export const SANDBOX_API_KEY = `svc_5a4db0c0ffee0001_${'0123456789abcdef'.repeat(4)}`;

/** A session cookie value for tests: live in every sandbox that has no seeded sessions. */
export const SANDBOX_SESSION = 'sandbox-session';

export function isWellFormedApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}
