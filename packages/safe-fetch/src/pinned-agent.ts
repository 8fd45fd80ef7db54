import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { checkAddress, parseAllowList } from './address-policy.ts';
import type { AllowList } from './address-policy.ts';
import { UnsafeUrlError } from './errors.ts';

export type LookupAddress = { address: string; family: 4 | 6 };
export type Lookup = (hostname: string) => Promise<LookupAddress[]>;

export const systemLookup: Lookup = async (hostname) => {
  const answers = await dns.promises.lookup(hostname, { all: true, order: 'verbatim' });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/**
 * Resolves once and refuses when ANY answer is not allowed: picking the "good" answer out of a mixed
 * set would still let an attacker steer a later retry or Happy Eyeballs fallback onto the bad one.
 */
async function resolveVetted(hostname: string, allowList: AllowList, lookup: Lookup): Promise<LookupAddress[]> {
  let answers: LookupAddress[];
  try {
    answers = await lookup(hostname);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const detail = typeof code === 'string' ? `DNS lookup failed (${code})` : 'DNS lookup failed';
    throw new UnsafeUrlError('dns', hostname, detail, { cause: error });
  }
  if (answers.length === 0) throw new UnsafeUrlError('dns', hostname, 'DNS lookup returned no addresses');
  for (const { address } of answers) {
    const verdict = checkAddress(address, allowList, hostname);
    if (!verdict.allowed) {
      throw new UnsafeUrlError('private-address', hostname, `resolves to ${address} (${verdict.range})`, {
        address,
        range: verdict.range,
      });
    }
  }
  return answers;
}

/** Refuses an address literal outside the policy (no DNS involved). */
function refuseLiteral(address: string, allowList: AllowList): void {
  const verdict = checkAddress(address, allowList);
  if (!verdict.allowed) {
    throw new UnsafeUrlError('private-address', address, `${address} is a ${verdict.range} address`, { address, range: verdict.range });
  }
}

/** Every address a URL host stands for, vetted: an address literal as it is, a name as it resolves. */
async function vetHost(hostname: string, allowList: AllowList, lookup: Lookup): Promise<LookupAddress[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const family = net.isIP(bare);
  if (family === 0) return resolveVetted(bare, allowList, lookup);
  refuseLiteral(bare, allowList);
  return [{ address: bare, family: family === 6 ? 6 : 4 }];
}

/**
 * The same address policy for clients that are not `SafeFetch` (a streamed upload, a browser's
 * requests): `vet` refuses a host before anything is sent, `lookup` is handed to net/tls.connect
 * (or http.request) so the socket connects to exactly the vetted addresses.
 */
export type AddressGuard = { vet: (hostname: string) => Promise<LookupAddress[]>; lookup: LookupFunction };

export function createAddressGuard(allowPrivate: readonly string[], lookup: Lookup = systemLookup): AddressGuard {
  const allowList = parseAllowList(allowPrivate);
  return { vet: (hostname) => vetHost(hostname, allowList, lookup), lookup: vettingLookup(allowList, lookup) };
}

function requestedFamily(family: number | string | undefined): 4 | 6 | undefined {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return undefined;
}

/**
 * Handed to net/tls.connect as `lookup`, so the socket connects to exactly the addresses vetted here
 * and the name is never resolved a second time (the DNS-rebinding window a check-then-fetch leaves).
 */
function vettingLookup(allowList: AllowList, lookup: Lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolveVetted(hostname, allowList, lookup).then(
      (answers) => {
        const family = requestedFamily(options.family);
        const usable = family === undefined ? answers : answers.filter((answer) => answer.family === family);
        const first = usable[0];
        if (first === undefined) {
          callback(new UnsafeUrlError('dns', hostname, `no IPv${family} address`), '');
        } else if (options.all === true) {
          callback(null, usable);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => callback(error as Error, ''),
    );
  };
}

/**
 * An undici Agent whose every new connection is vetted: IP-literal hosts are checked before any
 * socket exists (Node skips `lookup` for them), names go through the vetting lookup. TLS still
 * connects with the original hostname as `host`, so SNI and certificate checks use the name.
 */
export function createPinnedAgent(allowList: AllowList, lookup: Lookup, connectTimeoutMs: number): Agent {
  const connector = buildConnector({ lookup: vettingLookup(allowList, lookup), timeout: connectTimeoutMs });
  const connect: buildConnector.connector = (options, callback) => {
    if (net.isIP(options.hostname) !== 0) {
      try {
        refuseLiteral(options.hostname, allowList);
      } catch (error) {
        callback(error as Error, null);
        return;
      }
    }
    connector(options, callback);
  };
  return new Agent({ connect });
}
