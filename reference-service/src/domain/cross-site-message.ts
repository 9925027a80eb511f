/**
 * The words of a `cross_site` refusal. The portal opened at another address than the service's (localhost
 * for 127.0.0.1, a LAN or Docker address) is refused on every change; naming the address to open instead
 * turns a puzzle into a step. The origin is public: every card and every link of the service carries it.
 */
export function crossSiteMessage(what: string, origin: string): string {
  return `${what} must come from the service’s own origin; if you opened the portal at another address, open ${origin}/ instead`;
}
