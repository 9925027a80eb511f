const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A state-changing call carried by a session cookie must come from the service's own origin. Browsers
 * send `Sec-Fetch-Site` (modern ones) and `Origin` (on every non-GET request); either one naming another
 * site is enough to refuse. A call with neither header is not a browser being driven by another site.
 * API-key calls are never checked: a bearer header is not sent ambiently by the browser.
 */
export function isCrossSiteStateChange(
  method: string,
  headers: { secFetchSite?: string | undefined; origin?: string | undefined },
  ownOrigin: string,
): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return false;
  const site = headers.secFetchSite?.toLowerCase();
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  if (headers.origin !== undefined && headers.origin !== ownOrigin) return true;
  return false;
}
