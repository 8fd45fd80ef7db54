import { Resolver } from 'node:dns/promises';
import type { MxResolver } from './mail-sender.ts';

/** A DNS query as mailauth makes it (`dns.promises.resolve`'s shape): SPF, DKIM, DMARC and ARC records. */
export type DnsLookup = (name: string, type: string) => Promise<unknown>;

/**
 * The DNS the mail role asks: MX and A records for direct delivery, TXT records when it seals a
 * forwarded message (ARC). The system's servers, or those of `MAIL_DNS_SERVERS` ("ip" or
 * "ip:port"), which is also how tests point it at a DNS server on loopback. Short timeouts: a
 * lookup that hangs holds a delivery.
 */
export function createMailDns(servers: string[] | undefined): { mx: MxResolver; lookup: DnsLookup } {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (servers && servers.length > 0) resolver.setServers(servers);
  return {
    mx: { mx: (domain) => resolver.resolveMx(domain), a: (host) => resolver.resolve4(host) },
    lookup: (name, type) => resolver.resolve(name, type),
  };
}
