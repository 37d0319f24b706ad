/**
 * Which IP addresses a scrape may connect to. A scraping API fetches whatever URL it is given, so
 * the classifier is the SSRF boundary: it allows only global unicast and fails closed on
 * anything it cannot parse. It judges addresses, never host names; callers check the address
 * the socket actually connected to.
 */
import ipaddr from 'ipaddr.js';

/** Returns true when a connection to `ip` is allowed. */
export type AddressPolicy = (ip: string) => boolean;

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * Anycast infrastructure ranges (AS112 DNS sinks, AMT relays) are globally routed, so they stay
 * reachable; every other named range in ipaddr.js is private, local or reserved.
 */
const PUBLIC_IPV4_RANGES: ReadonlySet<string> = new Set(['unicast', 'as112', 'amt']);
const PUBLIC_IPV6_RANGES: ReadonlySet<string> = new Set(['unicast', 'as112v6', 'amt']);

/** Only 2000::/3 is allocated for global unicast; ipaddr.js calls the unallocated rest "unicast" too. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
/** IPv4-compatible addresses (RFC 4291, deprecated): no legitimate use, blocked outright. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
/** The well-known NAT64 prefix; the local-use 64:ff9b:1::/48 stays blocked as non-public. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Cloud metadata endpoints hand out credentials, so they stay blocked even when private
 * networks are allowed for local use (AWS/GCP/Azure/OpenStack, AWS ECS task metadata,
 * AWS over IPv6, Alibaba Cloud).
 */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  '169.254.169.254',
  '169.254.170.2',
  'fd00:ec2::254',
  '100.100.100.200',
]);

/** `::a.b.c.d`, the IPv4-compatible form as inet_ntop prints it; ipaddr.js would read it as IPv4-mapped. */
const COMPATIBLE_DOTTED = /^::(\d{1,3}(?:\.\d{1,3}){3})$/;

function parse(ip: string): IPv4 | IPv6 | undefined {
  try {
    const compatible = COMPATIBLE_DOTTED.exec(ip)?.[1];
    if (compatible) {
      const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(compatible).octets;
      return new ipaddr.IPv6([0, 0, 0, 0, 0, 0, (a << 8) | b, (c << 8) | d]);
    }
    return ipaddr.parse(ip);
  } catch {
    return undefined;
  }
}

/** An IPv4 address from two 16-bit IPv6 parts, where transition mechanisms embed one. */
function ipv4From(hi: number, lo: number): IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/** The IPv4 host behind an IPv4-mapped, IPv4-translated (RFC 6145) or NAT64 address. */
function translatedIPv4(addr: IPv6): IPv4 | undefined {
  const range = addr.range();
  if (range !== 'ipv4Mapped' && range !== 'rfc6145' && !addr.match(NAT64_WELL_KNOWN)) return undefined;
  const [, , , , , , hi = 0, lo = 0] = addr.parts;
  return ipv4From(hi, lo);
}

function isPublicIPv4(addr: IPv4): boolean {
  return PUBLIC_IPV4_RANGES.has(addr.range());
}

function isPublicIPv6(addr: IPv6): boolean {
  // Transition forms reach an IPv4 host, so that host decides.
  const translated = translatedIPv4(addr);
  if (translated) return isPublicIPv4(translated);
  if (addr.match(IPV4_COMPATIBLE)) return false;
  const range = addr.range();
  if (range === '6to4') {
    const [, hi = 0, lo = 0] = addr.parts;
    return isPublicIPv4(ipv4From(hi, lo));
  }
  if (range === 'teredo') {
    // RFC 4380: the server address sits in bits 32-63, the client address (inverted) in 96-127.
    const [, , hi = 0, lo = 0, , , chi = 0, clo = 0] = addr.parts;
    return isPublicIPv4(ipv4From(hi, lo)) && isPublicIPv4(ipv4From(~chi & 0xffff, ~clo & 0xffff));
  }
  return addr.match(GLOBAL_UNICAST_V6) && PUBLIC_IPV6_RANGES.has(range);
}

/** Canonical text of an address, translated IPv6 forms unwrapped, for exact-match lists. */
function canonical(addr: IPv4 | IPv6): string {
  const ipv4 = addr.kind() === 'ipv6' ? translatedIPv4(addr as IPv6) : addr;
  if (ipv4) return ipv4.toString();
  const text = addr.toString();
  const zone = text.indexOf('%');
  return zone === -1 ? text : text.slice(0, zone);
}

/** True only for globally routable unicast addresses; false for anything unparseable. */
export function isPublicAddress(ip: string): boolean {
  const addr = parse(ip);
  if (!addr) return false;
  return addr.kind() === 'ipv4' ? isPublicIPv4(addr as IPv4) : isPublicIPv6(addr as IPv6);
}

/** True for the cloud metadata endpoints, in any textual form. */
export function isMetadataAddress(ip: string): boolean {
  const addr = parse(ip);
  return addr !== undefined && METADATA_ADDRESSES.has(canonical(addr));
}

const publicOnly: AddressPolicy = isPublicAddress;
const anythingButMetadata: AddressPolicy = (ip) => parse(ip) !== undefined && !isMetadataAddress(ip);

/**
 * The policy for a scrape. The same function instance is returned for the same setting, so
 * dispatchers cached per policy are shared.
 */
export function addressPolicyFor(allowPrivateNetwork: boolean): AddressPolicy {
  return allowPrivateNetwork ? anythingButMetadata : publicOnly;
}
