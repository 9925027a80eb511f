import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { TargetPolicy } from '../domain/url-policy.js';
import { resolveCheckedAddresses } from './target-policy.js';

/**
 * The lookup handed to the socket layer by every outbound client (webhook delivery, peers, MCP upstreams):
 * the name is resolved once, every address is checked, and the socket connects to exactly the addresses
 * returned here, so there is no window between the check and the connection for DNS to change its answer.
 */
export function guardedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveCheckedAddresses(hostname, policy).then(
      (addresses) => {
        const entries: LookupAddress[] = addresses.map((address) => ({
          address,
          family: address.includes(':') ? 6 : 4,
        }));
        // Never empty: a name without an address is refused by resolveCheckedAddresses.
        if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, ''),
    );
  };
}
