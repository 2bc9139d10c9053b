import dns, { type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Every range that is not globally routable (IANA special-purpose registries), so a customer URL
// can never make us call into our own network, the loopback or a cloud metadata address.
const IPV4_RANGES: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const IPV6_RANGES: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['64:ff9b::', 96], // NAT64 (embeds an IPv4 address we would not check)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments, Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['3fff::', 20], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blocked = new BlockList();
for (const [network, prefix] of IPV4_RANGES) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of IPV6_RANGES) blocked.addSubnet(network, prefix, 'ipv6');

const MAPPED_IPV4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/** The canonical form of an IPv6 address (WHATWG URL), or undefined when it is not one. */
function canonicalIpv6(address: string): string | undefined {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** True only for a globally routable unicast address; anything unparsable is not public. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const canonical = canonicalIpv6(address);
  if (canonical === undefined) return false;
  const mapped = MAPPED_IPV4.exec(canonical);
  if (mapped) {
    const high = parseInt(mapped[1]!, 16);
    const low = parseInt(mapped[2]!, 16);
    return isPublicAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  return !blocked.check(canonical, 'ipv6');
}

/** A URL's host without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

export interface UrlPolicy {
  allowPrivate: boolean;
  /** Every address the host resolves to. */
  resolve(host: string): Promise<string[]>;
}

/**
 * Why `url` may not be called, or undefined when it may: it carries no credentials, and it must
 * be https:// and resolve only to public addresses, unless private URLs are allowed (local
 * development), which also allows http://. Checked on save; connections check the resolved
 * address again (see {@link publicAddressLookup}).
 */
export async function urlPolicyViolation(
  url: string,
  policy: UrlPolicy,
): Promise<string | undefined> {
  const parsed = new URL(url);
  // Credentials in a URL end up in logs, traces and error messages; they are never needed.
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  if (policy.allowPrivate) return undefined;
  if (parsed.protocol !== 'https:') return 'must be an https:// URL';
  const host = hostOf(parsed);
  if (isIP(host) !== 0) {
    return isPublicAddress(host)
      ? undefined
      : 'must not point to a private, loopback or link-local address';
  }
  let addresses: string[];
  try {
    addresses = await policy.resolve(host);
  } catch {
    return `host ${host} could not be resolved`;
  }
  if (addresses.length === 0) return `host ${host} could not be resolved`;
  return addresses.every(isPublicAddress)
    ? undefined
    : 'must not resolve to a private, loopback or link-local address';
}

/** `dns.lookup` with `all: true`: what a guarded lookup asks (tests give their own answers). */
export type DnsLookup = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** Every address `host` resolves to, through `dnsLookup`. */
export function resolveAll(host: string, dnsLookup: DnsLookup = dns.lookup): Promise<string[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => entry.address));
    });
  });
}

/** The `code` of the error a guarded lookup fails with. */
export const ADDRESS_BLOCKED = 'ERR_ADDRESS_BLOCKED';

/**
 * A DNS lookup for http(s) agents that refuses non-public addresses, so that the address actually
 * connected to is the one checked (no window for DNS rebinding between a check and the call).
 * `who` names the caller in the error: "… resolves to 10.0.0.5, which webhooks may not call".
 */
export function publicAddressLookup(
  who: string,
  dnsLookup: DnsLookup = dns.lookup,
): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '');
        return;
      }
      const refused = addresses.find((entry) => !isPublicAddress(entry.address));
      if (addresses.length === 0 || refused) {
        const address = refused?.address ?? 'no address';
        const blockedError = Object.assign(
          new Error(`${hostname} resolves to ${address}, which ${who} may not call`),
          { code: ADDRESS_BLOCKED },
        );
        callback(blockedError, '');
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
