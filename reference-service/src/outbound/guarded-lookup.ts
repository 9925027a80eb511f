import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { TargetPolicy } from '../domain/url-policy.js';
import { resolveCheckedAddresses } from './target-policy.js';

/**
 * The socket layer's lookup for every outbound client: the name resolved once, every address checked, and the
 * socket connected to exactly those, so DNS cannot change its answer between check and connection.
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
