import type { SessionInfo } from './account.js';
import { PortalError, toProblem } from './problem.js';

/** What a person reads when the browser did not keep the session the log-in just opened. */
export const COOKIE_DROPPED =
  'the service signed you in, but this browser did not keep the session cookie. Browsers keep it only ' +
  'over https or at a loopback address (127.0.0.1, localhost): open the portal that way, or ask the ' +
  'operator to serve it over https.';

/**
 * Reads the session right after a log-in, sign-up or invite answered 201. A 401 there means the cookie was
 * dropped (plain http on another host): said in words, instead of quietly showing the log-in form again.
 */
export async function sessionAfterSignIn(read: () => Promise<SessionInfo>): Promise<SessionInfo> {
  try {
    return await read();
  } catch (error) {
    const problem = toProblem(error);
    if (problem.status !== 401) throw error;
    throw new PortalError({ ...problem, message: COOKIE_DROPPED });
  }
}
