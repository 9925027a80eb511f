/**
 * The words of a `cross_site` refusal, naming the (public) origin to open instead: the portal opened at
 * another address (localhost for 127.0.0.1, a LAN address) is refused on every change.
 */
export function crossSiteMessage(what: string, origin: string): string {
  return `${what} must come from the service’s own origin; if you opened the portal at another address, open ${origin}/ instead`;
}
