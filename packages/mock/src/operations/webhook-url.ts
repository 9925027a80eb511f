const MAX_URL_LENGTH = 2048;

/** Suffixes that name hosts on a private network by convention (RFC 6761, RFC 6762, RFC 8375). */
const PRIVATE_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.lan', '.intranet', '.corp'];

/**
 * The receiver URL rules of createWebhook, as far as they can be checked without DNS: https, no
 * credentials, a fully qualified hostname that is not an IP literal and not a conventionally private
 * name. (The service also refuses names that resolve only to private addresses; the mock cannot know.)
 * Returns the reason for a refusal, or `undefined`.
 */
export function webhookUrlProblem(raw: string): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return `url must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not an absolute URL';
  }
  if (url.protocol !== 'https:') return 'url must use https';
  if (url.username !== '' || url.password !== '') return 'url must not carry credentials';
  // The URL parser has already normalised IPv4 forms (`127.1`, `0x7f.1`) to dotted quads.
  const hostname = url.hostname.toLowerCase();
  if (hostname.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(hostname)) {
    return 'url must use a hostname, not an IP address';
  }
  if (!hostname.includes('.')) return 'url must use a fully qualified hostname';
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix))) {
    return `url must use a public hostname; ${name} names a host on a private network`;
  }
  return undefined;
}
