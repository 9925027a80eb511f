// The allowed ports are a rule on the URL alone: the contract's, applied by the mock too.
import { isAllowedPort, LOCAL_WEBHOOK_HOSTS as LOCAL_HOSTS, PORT_RULE } from '@svc-kit/contract';
import { isGlobalUnicast, isLoopbackAddress } from '../domain/address-policy.js';
import type { NoAnswerReason } from '../domain/no-answer-reasons.js';
import { isIpLiteral, type TargetPolicy, unresolvedReason } from '../domain/url-policy.js';

/** The delivery log's names for the guard's refusals. */
export type BlockedCode = Extract<NoAnswerReason, 'dns' | 'guard_refused'>;

/**
 * Why the guard refused to open a connection. The message never holds anything secret; it may name the
 * address, so only `code` goes to the tenant's delivery log.
 */
export class OutboundBlockedError extends Error {
  override name = 'OutboundBlockedError';
  constructor(
    message: string,
    /** `dns` when the name did not resolve, otherwise a rule refused the URL or an address. */
    readonly code: BlockedCode = 'guard_refused',
  ) {
    super(message);
  }
}

/** The URL's checks before any lookup: the socket layer never calls the guarded lookup for an IP literal. */
export function checkTargetUrl(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundBlockedError('the URL is not an absolute URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundBlockedError('the URL carries credentials');
  }
  const hostname = url.hostname.toLowerCase();
  const local = policy.allowLocalhost && LOCAL_HOSTS.has(hostname);
  if (url.protocol !== 'https:' && !(local && url.protocol === 'http:')) {
    throw new OutboundBlockedError('the URL must use https');
  }
  if (!local && isIpLiteral(hostname)) throw new OutboundBlockedError('the URL names an IP address');
  if (!local && !isAllowedPort(url)) throw new OutboundBlockedError(`the URL is refused: ${PORT_RULE}`);
  return url;
}

/**
 * Resolves a name and checks EVERY address: one forbidden address refuses the name (a mix cannot reach the
 * inside). The caller connects to these addresses and nothing else: no second resolution, no DNS-rebinding
 * window.
 */
export async function resolveCheckedAddresses(hostname: string, policy: TargetPolicy): Promise<string[]> {
  const name = hostname.toLowerCase();
  if (policy.allowLocalhost && name === 'localhost') return ['127.0.0.1'];
  let failure: unknown;
  const addresses = await policy.resolve(name).catch((error: unknown): string[] => {
    failure = error;
    return [];
  });
  if (addresses.length === 0) throw new OutboundBlockedError(unresolvedReason(name, failure), 'dns');
  for (const address of addresses) {
    const allowed =
      isGlobalUnicast(address) ||
      (policy.allowLocalhost && LOCAL_HOSTS.has(name) && isLoopbackAddress(address));
    if (!allowed) {
      throw new OutboundBlockedError(`the hostname ${name} resolves to a forbidden address (${address})`);
    }
  }
  return addresses;
}
