import net from 'node:net';
import ipaddr from 'ipaddr.js';

type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

export type AllowList = {
  /** Lower-case hostnames without a trailing dot: every address they resolve to is permitted. */
  readonly hosts: ReadonlySet<string>;
  /** Single IPs are stored as /32 or /128 ranges. IPv4-mapped IPv6 entries are stored as IPv4. */
  readonly ranges: readonly (readonly [IpAddress, number])[];
};

export type AddressVerdict = {
  readonly allowed: boolean;
  /** ipaddr.js's range name ('unicast', 'loopback', 'private', …), 'ipv4Compatible', or 'invalid'. */
  readonly range: string;
};

// Letters, digits, '-' and '_' (seen in internal service names), after IDNA normalisation by URL.
const HOSTNAME = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function normalizeHostname(hostname: string): string {
  const lower = hostname.toLowerCase();
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  // "example.com." and "example.com" name the same host; without this a trailing dot dodges the allow-list.
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

const EXPECTED = 'expected a hostname, an IP address or a CIDR range such as 10.0.0.0/8';

function invalidEntry(entry: string, why: string): TypeError {
  return new TypeError(`Invalid allow-list entry "${entry}": ${why}`);
}

/** Judging a mapped address by its embedded IPv4 is what the kernel does when it connects to it. */
function unmap(address: IpAddress): IpAddress {
  return address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

function parseRange(entry: string, text: string): readonly [IpAddress, number] {
  const slash = text.indexOf('/');
  const addressText = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  const family = net.isIP(addressText);
  // net.isIP accepts only canonical forms, so "10/8" (ipaddr.js would read it as 0.0.0.10/8) is refused.
  if (family === 0) throw invalidEntry(entry, EXPECTED);
  if (!/^\d{1,3}$/.test(bitsText)) throw invalidEntry(entry, `"/${bitsText}" is not a prefix length`);
  const bits = Number(bitsText);
  if (bits > (family === 4 ? 32 : 128)) throw invalidEntry(entry, `prefix length /${bits} is too long`);
  const address = ipaddr.parse(addressText);
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && bits >= 96) {
    return [address.toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

function parseHostname(entry: string, text: string): string {
  let normalized: string;
  try {
    normalized = normalizeHostname(new URL(`http://${text}/`).hostname);
  } catch {
    throw invalidEntry(entry, EXPECTED);
  }
  // WHATWG URL turns "127.1" or "0x7f.1" into "127.0.0.1": an entry like that could never match a
  // hostname, so it is an IP written in a form we refuse to guess at.
  if (net.isIP(normalized) !== 0) throw invalidEntry(entry, 'write IPv4 addresses in dotted-decimal form');
  if (!HOSTNAME.test(normalized) || normalized.length > 253) {
    throw invalidEntry(entry, EXPECTED);
  }
  return normalized;
}

/**
 * Entries are hostnames, IPs or CIDR ranges (`127.0.0.1`, `10.0.0.0/8`, `localhost`, `::1`, `[::1]`).
 * Blank entries are skipped so a trailing comma in ALLOW_PRIVATE_URLS is harmless; anything else that
 * does not parse throws, because a silently ignored entry would look like a working exception.
 */
export function parseAllowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const ranges: (readonly [IpAddress, number])[] = [];
  for (const entry of entries) {
    const text = entry.trim();
    if (text === '') continue;
    const unbracketed = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
    if (text.includes('/')) {
      ranges.push(parseRange(entry, text));
    } else if (net.isIP(unbracketed) !== 0) {
      const address = unmap(ipaddr.parse(unbracketed));
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      hosts.add(parseHostname(entry, text));
    }
  }
  return { hosts, ranges };
}

function classify(address: IpAddress): string {
  const range = address.range();
  // ::/96 "IPv4-compatible" addresses (::7f00:1) are deprecated and ipaddr.js calls them unicast, but
  // some stacks still route them to the embedded IPv4, so they are never treated as public.
  if (address instanceof ipaddr.IPv6 && range === 'unicast' && address.parts.slice(0, 6).every((part) => part === 0)) {
    return 'ipv4Compatible';
  }
  return range;
}

function inAllowedRange(address: IpAddress, allowList: AllowList): boolean {
  return allowList.ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
}

/**
 * Only ipaddr.js's `unicast` range is public; everything else (loopback, private, link-local, CGNAT,
 * unique-local, multicast, reserved, NAT64, 6to4, Teredo…) needs an allow-list entry naming the
 * hostname it was resolved from, the IP, or a range containing it.
 */
export function checkAddress(ip: string, allowList: AllowList, hostname?: string): AddressVerdict {
  if (net.isIP(ip) === 0) return { allowed: false, range: 'invalid' };
  const address = unmap(ipaddr.parse(ip));
  const range = classify(address);
  if (range === 'unicast') return { allowed: true, range };
  if (hostname !== undefined && allowList.hosts.has(normalizeHostname(hostname))) return { allowed: true, range };
  return { allowed: inAllowedRange(address, allowList), range };
}

export function isAddressAllowed(ip: string, allowList: AllowList, hostname?: string): boolean {
  return checkAddress(ip, allowList, hostname).allowed;
}
