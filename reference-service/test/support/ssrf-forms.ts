/**
 * IPv6 forms that carry an IPv4 address, each judged as the IPv4 address it carries (and the special
 * ranges of the IANA registries). Shared by the address unit table, the connect-time guard tests and the
 * registration tests over HTTP: a name `<key>.ssrf.test` resolves to the address.
 */
export const REFUSED_FORMS: Record<string, string> = {
  'compatible-loopback': '::7f00:1',
  'compatible-loopback-dotted': '::127.0.0.1',
  'compatible-metadata': '::a9fe:a9fe',
  'compatible-private': '::a00:1',
  'mapped-loopback': '::ffff:7f00:1',
  'mapped-metadata': '::ffff:169.254.169.254',
  'nat64-loopback': '64:ff9b::7f00:1',
  'nat64-metadata': '64:ff9b::a9fe:a9fe',
  'nat64-private': '64:ff9b::c0a8:101',
  'nat64-local-loopback': '64:ff9b:1::7f00:1',
  // The local-use NAT64 prefix is not globally reachable whatever it carries.
  'nat64-local-public': '64:ff9b:1:808:8:800::',
  '6to4-loopback': '2002:7f00:1::1',
  '6to4-metadata': '2002:a9fe:a9fe::1',
  '6to4-private': '2002:a00:1::1',
  // Teredo: server 65.54.227.120 (public), client 127.0.0.1 (stored inverted: 80ff:fffe).
  'teredo-client-loopback': '2001:0:4136:e378:8000:63bf:80ff:fffe',
  // Teredo: server 10.0.0.1, client 8.8.8.8.
  'teredo-server-private': '2001:0:a00:1:8000:63bf:f7f7:f7f7',
  'isatap-loopback': '2606:4700::5efe:7f00:1',
  'isatap-metadata': '2606:4700::200:5efe:a9fe:a9fe',
  'isatap-private': '2a00:1450:4001::5efe:c0a8:1',
  // Special-purpose blocks a plain "unicast" label lets through.
  'v6-discard': '100::1',
  'v6-documentation': '2001:db8::1',
  'v6-documentation-3fff': '3fff::1',
  'v6-benchmarking': '2001:2::1',
  'v6-orchid-deprecated': '2001:10::1',
  'v6-site-local': 'fec0::1',
  'v6-srv6': '5f00::1',
  'v4-protocol-assignments': '192.0.0.9',
  'v4-6to4-relay': '192.88.99.1',
  'v4-benchmarking': '198.18.0.1',
  'v4-broadcast': '255.255.255.255',
};

/** Embedding forms whose IPv4 address is public: admitted, as that IPv4 address would be. */
export const ADMITTED_FORMS: Record<string, string> = {
  'compatible-public': '::808:808',
  'mapped-public': '::ffff:8.8.8.8',
  'nat64-public': '64:ff9b::808:808',
  '6to4-public': '2002:808:808::1',
  'teredo-public': '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  'isatap-public': '2606:4700::5efe:808:808',
  'v6-global': '2606:4700:4700::1111',
  'v4-global': '93.184.215.14',
};

export const SSRF_DOMAIN = 'ssrf.test';

/** Name → addresses, for an injected resolver. */
export function ssrfDns(): Record<string, string[]> {
  const dns: Record<string, string[]> = {};
  for (const [key, address] of Object.entries({ ...REFUSED_FORMS, ...ADMITTED_FORMS })) {
    dns[`${key}.${SSRF_DOMAIN}`] = [address];
  }
  return dns;
}
