const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The browser headers that say where a request comes from (header values as sent). */
export interface SiteHeaders {
  secFetchSite?: string | undefined;
  origin?: string | undefined;
}

/** A browser header that names a site other than ours: `Sec-Fetch-Site` not same-origin, or another `Origin`. */
function namesAnotherSite(headers: SiteHeaders, ownOrigin: string): boolean {
  const site = headers.secFetchSite?.toLowerCase();
  if (site !== undefined && site !== 'same-origin') return true;
  return headers.origin !== undefined && headers.origin !== ownOrigin;
}

/**
 * Spec part 5: a state-changing call carried by a session cookie must be shown to come from the service's
 * own origin: `Sec-Fetch-Site: same-origin` or an `Origin` equal to the service's, and no header naming
 * another site. A call that proves nothing (neither header; `Referer` is not proof, it is often stripped or
 * forged by extensions) is refused too. API-key calls are never checked: a bearer header is not sent
 * ambiently by the browser. The reference service and the mock both decide with this function.
 */
export function isCrossSiteStateChange(method: string, headers: SiteHeaders, ownOrigin: string): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return false;
  if (namesAnotherSite(headers, ownOrigin)) return true;
  return headers.secFetchSite === undefined && headers.origin === undefined;
}

/**
 * Log-in carries no session yet, so it cannot be ridden: it is refused only when a browser says the form
 * was posted from another site (login CSRF), and a program may log in without browser headers.
 */
export function isCrossSiteLogin(headers: SiteHeaders, ownOrigin: string): boolean {
  return namesAnotherSite(headers, ownOrigin);
}
