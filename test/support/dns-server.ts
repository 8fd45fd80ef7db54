import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket, { type Answer } from 'dns-packet';

export type DnsServer = {
  /** `ip:port`, as MAIL_DNS_SERVERS takes it. */
  address: string;
  /**
   * Replaces the records served: `TYPE:name` → a value, or several (one record each). TXT: the
   * text; MX: `preference exchange`; A, AAAA: the address.
   */
  serve(records: Record<string, string | string[]>): void;
  close(): Promise<void>;
};

/** RFC 1035 §3.3.14: a TXT record is a list of strings of at most 255 bytes each. */
const txtChunks = (value: string): string[] => value.match(/[\s\S]{1,255}/g) ?? [''];

function answerFor(type: string, name: string, value: string): Answer | null {
  switch (type) {
    case 'TXT':
      return { type: 'TXT', name, ttl: 60, class: 'IN', data: txtChunks(value) };
    case 'MX': {
      const [preference, exchange] = value.split(' ');
      return { type: 'MX', name, ttl: 60, class: 'IN', data: { preference: Number(preference), exchange: exchange ?? '' } };
    }
    case 'A':
      return { type: 'A', name, ttl: 60, class: 'IN', data: value };
    case 'AAAA':
      return { type: 'AAAA', name, ttl: 60, class: 'IN', data: value };
    default:
      return null;
  }
}

/**
 * A DNS server on loopback answering TXT, MX, A and AAAA questions from a map, NXDOMAIN
 * otherwise: the mail role's own lookups (MX delivery, and SPF, DKIM, DMARC for ARC sealing) in
 * tests, which never use real DNS.
 */
export async function startDnsServer(records: Record<string, string | string[]> = {}): Promise<DnsServer> {
  let served = records;
  const socket = createSocket('udp4');
  socket.on('message', (message, remote) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const answers: Answer[] = (query.questions ?? []).flatMap((question): Answer[] => {
      const value = served[`${question.type}:${question.name.toLowerCase()}`] ?? [];
      return (Array.isArray(value) ? value : [value]).flatMap((one) => answerFor(question.type, question.name, one) ?? []);
    });
    const nxdomain = 3;
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id ?? 0,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (answers.length > 0 ? 0 : nxdomain),
      questions: query.questions ?? [],
      answers,
    });
    socket.send(response, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    serve(records) {
      served = records;
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
