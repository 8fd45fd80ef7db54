import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import {
  createTestDatabase,
  quarryEnv,
  startFixtureWeb,
  startPrivatePostgres,
  startPrivateRedis,
  startSmtpSink,
  type FixtureWeb,
  type PrivatePostgres,
  type PrivateRedis,
  type SmtpSink,
} from '@quarry/testing';
import { startDnsServer, type DnsServer } from '../../test/support/dns-server.ts';
import { startFakeOtaSource, type FakeOtaSource } from '../../test/support/fake-ota-source.ts';
import { startPushSink, type PushSink } from './push-sink.ts';
import { superviseRole, type RoleProcess, type UnexpectedExit } from './role-processes.ts';

const mailDomain = 'fwd.test';
export const mailRecipient = `inbox@${mailDomain}`;
export const mailDestination = 'dest@dest.test';
const hotelIds = ['F1', 'F2'];

type Client = { clientId: string; secret: string };

/** Every role twice, each its own process: a fault of one process leaves its twin running. */
export type FaultCluster = {
  postgres: PrivatePostgres;
  redis: PrivateRedis;
  db: Pool;
  web: FixtureWeb;
  sink: SmtpSink;
  pushSink: PushSink;
  /** The SMTP destination answers 451 to RCPT while this is true. */
  smtpRefusing: { on: boolean };
  roles: Record<'api' | 'mining-worker' | 'rates-worker' | 'mail', [RoleProcess, RoleProcess]>;
  exits: UnexpectedExit[];
  recruiter: Client;
  forwarder: Client;
  partner: Client;
  /** Push subscription ids, created at start. */
  subscriptions: string[];
  allReady(): Promise<void>;
  /** Runs the mail role again with these settings added (a scenario that must change one says so). */
  restartMail(extra: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
};

const basic = (client: Client) => `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}`;

async function post(port: number, client: Client, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: basic(client), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/**
 * Private PostgreSQL and Redis (append-only file, as an operator runs it) on free ports, the
 * outside world on loopback (a careers site, an SMTP destination, an OpenTravel source, a push
 * receiver, a DNS server), and every role twice at default settings.
 */
export async function startFaultCluster(): Promise<FaultCluster> {
  const [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis({ appendOnly: true })]);
  const database = await createTestDatabase('faults', postgres.url);
  const db = createPool(database.url, 4);
  const [web, sink, ota, pushSink, dns]: [FixtureWeb, SmtpSink, FakeOtaSource, PushSink, DnsServer] = await Promise.all([
    startFixtureWeb(),
    startSmtpSink(),
    startFakeOtaSource(),
    startPushSink(),
    startDnsServer(),
  ]);
  const smtpRefusing = { on: false };
  sink.onRcpt(mailDestination, () => (smtpRefusing.on ? { code: 451, message: '4.3.2 Try again later' } : null));
  const secretKey = Buffer.alloc(32, 9);
  const recruiter = await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment', 'admin'] });
  const forwarder = await createClient({ db, secretKey }, { name: 'forwarder', scopes: ['forwarding'] });
  const partner = await createClient({ db, secretKey }, { name: 'partner', scopes: ['hotels'] });
  // Only what must point at this machine's private stores and loopback fixtures; every tuning
  // setting stays at its default.
  const env: Record<string, string> = {
    ...quarryEnv({ database, redis: { url: redis.url, prefix: 'quarry' }, secretKey }),
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: '0',
    MAIL_DOMAINS: mailDomain,
    MAIL_RELAY_URL: sink.url,
    MAIL_DNS_SERVERS: dns.address,
    LOG_LEVEL: 'info',
  };
  const exits: UnexpectedExit[] = [];
  const onExit = (exit: UnexpectedExit) => exits.push(exit);
  const pair = (role: string, extra: Record<string, string> = {}): [RoleProcess, RoleProcess] => [
    superviseRole(`${role}#1`, role, { ...env, ...extra }, onExit),
    superviseRole(`${role}#2`, role, { ...env, ...extra }, onExit),
  ];
  // The API first: it runs the migrations once, the others then find them done.
  const api = pair('api');
  await api[0].ready();
  const roles = { api, 'mining-worker': pair('mining-worker'), 'rates-worker': pair('rates-worker'), mail: pair('mail') };
  const all = () => Object.values(roles).flat();
  const allReady = async () => {
    await Promise.all(all().map((role) => role.ready()));
  };
  await allReady();

  const apiPort = api[0].port();
  const admin = recruiter;
  for (const hotelId of hotelIds) {
    ota.hotels.set(hotelId, { price: '120.00' });
    await post(apiPort, admin, 'PUT', `/v1/admin/hotels/${hotelId}`, {
      name: hotelId, ibe: 'opentravel', address: '', countryCode: 'gb', guests: [2], bookingPageUrl: 'https://book.example.com/',
      source: { kind: 'opentravel', endpointUrl: ota.url, hotelCode: hotelId },
    });
  }
  await post(apiPort, admin, 'POST', '/v1/admin/hotel-grants', { clientId: partner.clientId, hotelIds });
  const subscriptions: string[] = [];
  for (let index = 0; index < 6; index += 1) {
    const created = await post(apiPort, partner, 'POST', '/v1/hotels/push-subscriptions', {
      pushUrl: pushSink.url(`/sub-${index}`), apiKey: `key-${index}`, hotelIds, searches: { daysAhead: 2, nights: [1], guests: [2] },
    });
    subscriptions.push(String(created.subscriptionId));
  }
  await post(apiPort, forwarder, 'POST', '/Forwarding/bind', { recipient: mailRecipient, forwardsTo: mailDestination, keepSender: false });

  return {
    postgres, redis, db, web, sink, pushSink, smtpRefusing, roles, exits, recruiter, forwarder, partner, subscriptions, allReady,
    async restartMail(extra) {
      await Promise.all(roles.mail.map((role) => role.stop()));
      roles.mail = pair('mail', extra);
      await allReady();
    },
    async stop() {
      await Promise.all(all().map((role) => role.stop()));
      await db.end();
      await Promise.all([web.close(), sink.close(), ota.close(), pushSink.close(), dns.close()]);
      await redis.remove();
      await postgres.remove();
    },
  };
}

export const authorization = basic;
