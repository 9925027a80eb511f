import { isLoopbackHost } from '../../domain/local-targets.js';

/**
 * Why a portal would not keep anyone signed in, if it would not: the session cookie is `__Host-` and
 * `Secure`, which browsers keep only from https or from a loopback address. Over plain http on any other
 * host a log-in answers 201 and the browser drops the cookie, so the next page is the log-in form again.
 * Answers the lines to print at start, or none.
 */
export function insecureOriginWarning(origin: string): string[] {
  const { protocol, hostname } = new URL(origin);
  if (protocol === 'https:' || isLoopbackHost(hostname) || hostname.endsWith('.localhost')) return [];
  return [
    `  WARNING: ${origin} is plain http on a host that is not loopback: browsers refuse the secure session`,
    '  cookie there, so nobody stays signed in. Serve it over https (SVC_PUBLIC_URL=https://…), or open',
    '  it through a tunnel to http://127.0.0.1:<port> on the browser’s machine.',
  ];
}
