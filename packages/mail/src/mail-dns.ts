import { Resolver } from 'node:dns/promises';
import type { MxResolver } from './mail-sender.ts';

/** A DNS query as mailauth makes it (`dns.promises.resolve`'s shape): SPF, DKIM, DMARC and ARC records. */
export type DnsLookup = (name: string, type: string) => Promise<unknown>;

/**
 * The DNS the mail role asks: MX, A and AAAA records for direct delivery, TXT records when it seals a
 * forwarded message (ARC). The system's servers, or those of `MAIL_DNS_SERVERS` ("ip" or
 * "ip:port"), which is also how tests point it at a DNS server on loopback. Short timeouts: a
 * lookup that hangs holds a delivery.
 */
export function createMailDns(servers: string[] | undefined): { mx: MxResolver; lookup: DnsLookup } {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (servers && servers.length > 0) resolver.setServers(servers);
  return {
    mx: { mx: (domain) => resolver.resolveMx(domain), addresses: (host) => addressesOf(resolver, host) },
    lookup: (name, type) => resolver.resolve(name, type),
  };
}

/**
 * A mail host's IPv4 addresses, then its IPv6 ones (RFC 5321 §5.1 allows either; trying IPv4 first
 * is what MTAs do on hosts whose IPv6 route may be missing: a failed connection moves on to the
 * next address). Fails only when neither lookup found anything.
 */
async function addressesOf(resolver: Resolver, host: string): Promise<string[]> {
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const found = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
  if (found.length > 0) return found;
  throw v4.status === 'rejected' ? v4.reason : new Error(`no address for ${host}`);
}
