export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** The receiver hosts the local-development opt-in admits, over http or https. */
export const LOCAL_WEBHOOK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1']);

/** Suffixes that name hosts on a private network by convention (RFC 6761, RFC 6762, RFC 8375). */
const PRIVATE_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.lan', '.intranet', '.corp'];

/**
 * Ports an outbound URL may name: 443 (the https default) and 1024 to 65535. The well-known ports below
 * 1024 belong to other protocols (SMTP, SSH, LDAP, admin services behind them): a receiver the service
 * POSTs to is never one of them, and refusing them keeps the service from being used to speak HTTP at
 * someone's mail or directory server. A rule on the URL alone, so the mock applies it too; a local
 * target (the sandbox's) may name any port.
 */
export function isAllowedPort(url: URL): boolean {
  if (url.port === '') return true;
  const port = Number(url.port);
  return port === 443 || (port >= 1024 && port <= 65535);
}

export const PORT_RULE = 'the port must be 443 or 1024 to 65535';

export interface WebhookUrlRuleOptions {
  /** Local development: also admit `http(s)://localhost` and `127.0.0.1`. */
  allowLocalhost?: boolean;
}

/**
 * The receiver URL rules of createWebhook that need no DNS: at most 2048 characters, absolute, no
 * credentials, https, a fully qualified hostname that is neither an IP literal nor a conventionally private
 * name, an allowed port. Returns the parsed URL, or the reason for a refusal. A service must also check what the name
 * resolves to (and the dialler what it connects to); a mock cannot.
 */
export function checkWebhookUrlShape(
  raw: string,
  options: WebhookUrlRuleOptions = {},
): { ok: true; url: URL; local: boolean } | { ok: false; reason: string } {
  if (raw.length > WEBHOOK_URL_MAX_LENGTH) {
    return { ok: false, reason: `url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url is not an absolute URL' };
  }
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'url must not carry credentials' };
  const hostname = url.hostname.toLowerCase();
  if (
    options.allowLocalhost === true &&
    LOCAL_WEBHOOK_HOSTS.has(hostname) &&
    (url.protocol === 'http:' || url.protocol === 'https:')
  ) {
    return { ok: true, url, local: true };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'url must use https' };
  // The URL parser has already normalised IPv4 forms (`127.1`, `0x7f.1`) to dotted quads; IPv6 is bracketed.
  if (hostname.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(hostname)) {
    return { ok: false, reason: 'url must use a hostname, not an IP address' };
  }
  if (!hostname.includes('.')) return { ok: false, reason: 'url must use a fully qualified hostname' };
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix))) {
    return { ok: false, reason: `url must use a public hostname; ${name} names a host on a private network` };
  }
  if (!isAllowedPort(url)) return { ok: false, reason: `url is refused: ${PORT_RULE}` };
  return { ok: true, url, local: false };
}
