import { describe, expect, it } from 'vitest';
import { checkAddress, isAddressAllowed, parseAllowList } from './address-policy.ts';

const none = parseAllowList([]);

describe('checkAddress without an allow-list', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::7f00:1', 'ipv4Compatible'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::1', '6to4'],
    ['2001:0:a00:1::1', 'teredo'],
  ])('refuses %s (%s)', (ip, range) => {
    expect(checkAddress(ip, none)).toEqual({ allowed: false, range });
    expect(isAddressAllowed(ip, none)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'treats the public unicast address %s as allowed',
    (ip) => {
      expect(checkAddress(ip, none)).toEqual({ allowed: true, range: 'unicast' });
    },
  );

  it.each(['127.1', '2130706433', '0x7f000001', 'localhost', '', '1.2.3.4.5'])('refuses the non-canonical input %j', (ip) => {
    expect(checkAddress(ip, none)).toEqual({ allowed: false, range: 'invalid' });
  });
});

describe('checkAddress with an allow-list', () => {
  const allowList = parseAllowList(['127.0.0.1', '10.0.0.0/8', 'localhost', '::1', 'fd00::/8', '[fe80::7]']);

  it('permits a listed IP but not its neighbour', () => {
    expect(isAddressAllowed('127.0.0.1', allowList)).toBe(true);
    expect(isAddressAllowed('127.0.0.2', allowList)).toBe(false);
  });

  it('permits addresses inside a listed CIDR only', () => {
    expect(isAddressAllowed('10.20.30.40', allowList)).toBe(true);
    expect(isAddressAllowed('11.0.0.1', allowList)).toBe(true); // public anyway
    expect(isAddressAllowed('192.168.0.1', allowList)).toBe(false);
    expect(isAddressAllowed('fd12::1', allowList)).toBe(true);
    expect(isAddressAllowed('fc00::1', allowList)).toBe(false);
  });

  it('judges a mapped IPv6 address by its IPv4 against the list', () => {
    expect(isAddressAllowed('::ffff:10.1.1.1', allowList)).toBe(true);
    expect(isAddressAllowed('::ffff:7f00:1', allowList)).toBe(true);
    expect(isAddressAllowed('::ffff:7f00:2', allowList)).toBe(false);
  });

  it('permits any address of a listed hostname, and only for that hostname', () => {
    expect(isAddressAllowed('192.168.7.7', allowList, 'localhost')).toBe(true);
    expect(isAddressAllowed('192.168.7.7', allowList, 'LOCALHOST.')).toBe(true);
    expect(isAddressAllowed('192.168.7.7', allowList, 'localhost.evil.test')).toBe(false);
    expect(isAddressAllowed('192.168.7.7', allowList)).toBe(false);
  });

  it('accepts IPv6 entries with or without brackets', () => {
    expect(isAddressAllowed('::1', allowList)).toBe(true);
    expect(isAddressAllowed('fe80::7', allowList)).toBe(true);
    expect(isAddressAllowed('fe80::8', allowList)).toBe(false);
  });

  it('stores mapped IPv6 entries as IPv4 so they match plain IPv4 answers', () => {
    const mapped = parseAllowList(['::ffff:192.168.0.0/112', '::ffff:172.16.0.9']);
    expect(isAddressAllowed('192.168.4.4', mapped)).toBe(true);
    expect(isAddressAllowed('172.16.0.9', mapped)).toBe(true);
    expect(isAddressAllowed('192.169.0.1', mapped)).toBe(true); // public anyway
    expect(isAddressAllowed('10.0.0.1', mapped)).toBe(false);
  });
});

describe('parseAllowList', () => {
  it('parses the documented example and skips blanks', () => {
    const allowList = parseAllowList(['127.0.0.1', '10.0.0.0/8', 'localhost', '::1', ' ', '']);
    expect([...allowList.hosts]).toEqual(['localhost']);
    expect(allowList.ranges.map(([address, bits]) => `${address.toString()}/${bits}`)).toEqual(['127.0.0.1/32', '10.0.0.0/8', '::1/128']);
  });

  it('normalises hostnames to lower case without a trailing dot', () => {
    expect([...parseAllowList(['Internal.Example.COM.', 'svc_name.local']).hosts]).toEqual(['internal.example.com', 'svc_name.local']);
  });

  it.each([
    ['10/8', 'expected a hostname'],
    ['10.0.0.0/33', '/33 is too long'],
    ['::1/129', '/129 is too long'],
    ['10.0.0.0/x', 'not a prefix length'],
    ['127.1', 'dotted-decimal'],
    ['0x7f.1', 'dotted-decimal'],
    ['2130706433', 'dotted-decimal'],
    ['foo bar', 'expected a hostname'],
    ['*.example.com', 'expected a hostname'],
    ['http://example.com', 'expected a hostname'],
    ['[::1', 'expected a hostname'],
    ['1.2.3.4.5', 'expected a hostname'],
  ])('throws naming the unparseable entry %j', (entry, hint) => {
    expect(() => parseAllowList(['localhost', entry])).toThrow(`Invalid allow-list entry "${entry}"`);
    expect(() => parseAllowList([entry])).toThrow(hint);
  });
});
