import { describe, expect, it } from 'vitest';
import { addressPolicyFor, isMetadataAddress, isPublicAddress } from '../../../scraper/net/address-policy.js';

const blocked: Array<[string, string]> = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', '0/8'],
  ['10.0.0.1', 'private 10/8'],
  ['10.255.255.255', 'private 10/8'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.254', 'carrier-grade NAT'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'cloud metadata'],
  ['172.16.0.5', 'private 172.16/12 (firecrawl#2070)'],
  ['172.31.255.255', 'private 172.16/12'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.168.1.1', 'private 192.168/16'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.51.100.7', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'documentation TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['255.255.255.255', 'broadcast'],
  ['2130706433', 'decimal form of 127.0.0.1'],
  ['0x7f.1', 'hex short form of 127.0.0.1'],
  ['127.1', 'short form of 127.0.0.1'],
  ['0177.0.0.1', 'octal form of 127.0.0.1'],
  ['::', 'IPv6 unspecified'],
  ['::1', 'IPv6 loopback'],
  ['fe80::1', 'IPv6 link-local'],
  ['fe80::1%eth0', 'IPv6 link-local with zone'],
  ['febf::1', 'IPv6 link-local upper end'],
  ['fc00::1', 'unique-local'],
  ['fd00:ec2::254', 'AWS metadata over IPv6'],
  ['fec0::1', 'deprecated site-local'],
  ['ff02::1', 'IPv6 multicast'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback (firecrawl#4293)'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::7f00:1', 'IPv4-compatible loopback'],
  ['::127.0.0.1', 'IPv4-compatible loopback, dotted'],
  ['::8.8.8.8', 'IPv4-compatible (deprecated)'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
  ['64:ff9b::7f00:1', 'NAT64 of loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of metadata'],
  ['64:ff9b:1::808:808', 'local-use NAT64'],
  ['2002:7f00:1::1', '6to4 of loopback'],
  ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo with client 127.0.0.1'],
  ['2001:db8::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'ORCHID'],
  ['100::1', 'discard-only'],
  ['5f00::1', 'SRv6 SIDs'],
  ['3fff::1', 'documentation (RFC 9637)'],
  ['4000::1', 'outside 2000::/3'],
  ['', 'empty'],
  ['localhost', 'a host name, not an address'],
  ['[::1]', 'bracketed'],
  ['1.2.3.4.5', 'malformed'],
];

const allowed: Array<[string, string]> = [
  ['8.8.8.8', 'public IPv4'],
  ['1.1.1.1', 'public IPv4'],
  ['93.184.215.14', 'public IPv4'],
  ['100.63.255.255', 'just below 100.64/10'],
  ['100.128.0.1', 'just above 100.64/10'],
  ['172.15.255.255', 'just below 172.16/12'],
  ['172.32.0.1', 'just above 172.16/12'],
  ['192.31.196.1', 'AS112 anycast'],
  ['223.255.255.254', 'just below multicast'],
  ['2606:4700:4700::1111', 'public IPv6'],
  ['2001:4860:4860::8888', 'public IPv6'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public'],
  ['64:ff9b::808:808', 'NAT64 of public'],
  ['2002:808:808::1', '6to4 of public'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo with public server and client'],
];

describe('isPublicAddress', () => {
  it.each(blocked)('blocks %s (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(allowed)('allows %s (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});

describe('addressPolicyFor', () => {
  it('allows only public addresses by default', () => {
    const policy = addressPolicyFor(false);
    expect(policy('8.8.8.8')).toBe(true);
    expect(policy('127.0.0.1')).toBe(false);
    expect(policy('192.168.0.10')).toBe(false);
  });

  it('allows private networks when asked, but never cloud metadata endpoints', () => {
    const policy = addressPolicyFor(true);
    expect(policy('127.0.0.1')).toBe(true);
    expect(policy('::1')).toBe(true);
    expect(policy('172.17.0.2')).toBe(true);
    expect(policy('8.8.8.8')).toBe(true);
    for (const ip of ['169.254.169.254', '::ffff:169.254.169.254', '64:ff9b::a9fe:a9fe', 'fd00:ec2::254', '169.254.170.2', '100.100.100.200']) {
      expect(isMetadataAddress(ip)).toBe(true);
      expect(policy(ip)).toBe(false);
    }
    expect(policy('not an ip')).toBe(false);
  });

  it('returns the same function for the same setting, so dispatchers are shared', () => {
    expect(addressPolicyFor(false)).toBe(addressPolicyFor(false));
    expect(addressPolicyFor(true)).toBe(addressPolicyFor(true));
  });
});
