import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import {
  createTestDatabase,
  quarryEnv,
  startApplicationSites,
  startFixtureWeb,
  startOpenTravelHotel,
  startPrivatePostgres,
  startPrivateRedis,
  startSmtpSink,
  type ApplicationSites,
  type FixtureWeb,
  type OpenTravelHotel,
  type PrivatePostgres,
  type PrivateRedis,
  type SmtpSink,
} from '@quarry/testing';
import { startDnsServer, type DnsServer } from '../../test/support/dns-server.ts';
import { startFakeOtaSource, type FakeOtaSource } from '../../test/support/fake-ota-source.ts';
import { createFaultNetwork, type FaultNetwork, type WorkerNamespace } from './network.ts';
import { startPushSink, type PushSink } from './push-sink.ts';
import { superviseRole, type RoleProcess, type UnexpectedExit } from './role-processes.ts';

const mailDomain = 'fwd.test';
export const mailRecipient = `inbox@${mailDomain}`;
export const mailDestination = 'dest@dest.test';
const hotelIds = ['F1', 'F2'];
export const bookingHotelId = 'B1';
/** How long the careers sites take to answer a submitted form, and the hotel an order: work is mid-call for that long. */
const slowAnswerMs = 4_000;
/** Careers sites, each on an address (a host) of its own: politeness allows one application per host at a time. */
const careerSites = 4;

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
  roles: Record<'api' | 'mining-worker' | 'rates-worker' | 'mail' | 'applications-worker' | 'bookings-worker', [RoleProcess, RoleProcess]>;
  exits: UnexpectedExit[];
  recruiter: Client;
  forwarder: Client;
  partner: Client;
  booker: Client;
  /** Careers sites (the slow form at `/slow`), each on its own host. */
  sites: ApplicationSites[];
  /** The hotel bookings order from (OpenTravel), answering orders `slowAnswerMs` after they arrive. */
  hotel: OpenTravelHotel;
  network: FaultNetwork;
  /** Every process the namespaces and the machine show, to find who holds a connection. */
  namespaces: WorkerNamespace[];
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
 * receiver, a DNS server) and on the suite's own veth addresses (careers sites with a slow form,
 * a hotel that books over OpenTravel), and every role twice at default settings: the second
 * applications-worker and bookings-worker each in a network namespace of its own.
 */
export async function startFaultCluster(): Promise<FaultCluster> {
  // The second applications-worker and the second bookings-worker each run in a network namespace
  // of their own, which the partition scenarios cut off; the stores listen on the namespaces' veth
  // ends too, and the doubles those two roles talk to listen on the machine's end of the first.
  const network = await createFaultNetwork(2, careerSites);
  const [applyNamespace, bookNamespace] = network.namespaces as [WorkerNamespace, WorkerNamespace];
  const listen = network.namespaces.map((namespace) => namespace.hostAddress);
  const [postgres, redis] = await Promise.all([
    startPrivatePostgres({ listen, trust: network.namespaces.map((namespace) => `${namespace.address}/32`) }),
    startPrivateRedis({ appendOnly: true, listen }),
  ]);
  const database = await createTestDatabase('faults', postgres.url);
  const db = createPool(database.url, 4);
  const [web, sink, ota, pushSink, dns]: [FixtureWeb, SmtpSink, FakeOtaSource, PushSink, DnsServer] = await Promise.all([
    startFixtureWeb(),
    startSmtpSink(),
    startFakeOtaSource(),
    startPushSink(),
    startDnsServer(),
  ]);
  const sites = await Promise.all(network.worldAddresses.map((host) => startApplicationSites({ host, slowAnswerMs })));
  const hotel = await startOpenTravelHotel({ host: network.worldAddresses[0] });
  hotel.hotels.set(bookingHotelId, { price: '150.00', currency: 'EUR', answerOrdersAfterMs: slowAnswerMs });
  const smtpRefusing = { on: false };
  sink.onRcpt(mailDestination, () => (smtpRefusing.on ? { code: 451, message: '4.3.2 Try again later' } : null));
  const secretKey = Buffer.alloc(32, 9);
  const recruiter = await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment', 'admin'] });
  const forwarder = await createClient({ db, secretKey }, { name: 'forwarder', scopes: ['forwarding'] });
  const partner = await createClient({ db, secretKey }, { name: 'partner', scopes: ['hotels'] });
  const booker = await createClient({ db, secretKey }, { name: 'booker', scopes: ['booking'] });
  // Only what must point at this machine's private stores and loopback fixtures; every tuning
  // setting stays at its default.
  const env: Record<string, string> = {
    ...quarryEnv({ database, redis: { url: redis.url, prefix: 'quarry' }, secretKey }),
    ALLOW_PRIVATE_URLS: ['127.0.0.1', ...network.worldAddresses].join(','),
    // The feed's OpenTravel fixture is on loopback over plain http: (the development allowance).
    ALLOW_LOOPBACK_HTTP_HOTELS: 'true',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: '0',
    MAIL_DOMAINS: mailDomain,
    MAIL_RELAY_URL: sink.url,
    MAIL_DNS_SERVERS: dns.address,
    LOG_LEVEL: 'info',
  };
  const exits: UnexpectedExit[] = [];
  const onExit = (exit: UnexpectedExit) => exits.push(exit);
  const pair = (role: string, extra: Record<string, string> = {}, namespace?: WorkerNamespace): [RoleProcess, RoleProcess] => [
    superviseRole(`${role}#1`, role, { ...env, ...extra }, onExit),
    superviseRole(
      `${role}#2`,
      role,
      { ...env, ...extra, ...(namespace ? storesThrough(namespace) : {}) },
      onExit,
      namespace ? { namespace } : {},
    ),
  ];
  // A worker in a namespace reaches the stores at the machine's end of its pair.
  const storesThrough = (namespace: WorkerNamespace) => ({
    DATABASE_URL: env.DATABASE_URL!.replace('@127.0.0.1:', `@${namespace.hostAddress}:`),
    REDIS_URL: env.REDIS_URL!.replace('//127.0.0.1:', `//${namespace.hostAddress}:`),
  });
  // Only the roles that store or open cards get the vault's key (ADR 0046).
  const vault = { VAULT_KEY: Buffer.alloc(32, 4).toString('base64') };
  // The API first: it runs the migrations once, the others then find them done.
  const api = pair('api', vault);
  await api[0].ready();
  const roles = {
    api,
    'mining-worker': pair('mining-worker'),
    'rates-worker': pair('rates-worker'),
    mail: pair('mail'),
    'applications-worker': pair('applications-worker', {}, applyNamespace),
    'bookings-worker': pair('bookings-worker', vault, bookNamespace),
  };
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
      name: hotelId,
      ibe: 'opentravel',
      address: '',
      countryCode: 'gb',
      guests: [2],
      bookingPageUrl: 'https://book.example.com/',
      source: { kind: 'opentravel', endpointUrl: ota.url, hotelCode: hotelId },
    });
  }
  await post(apiPort, admin, 'POST', '/v1/admin/hotel-grants', { clientId: partner.clientId, hotelIds });
  // The booking hotel is on a world address of the fault network over plain http:, which the
  // registry refuses for a card's endpoint (loopback only, with the allowance): written as the tests do.
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ($1, $1, 'opentravel', '', 'gb', NULL, '{2}', 'https://book.example.com/', $2)`,
    [bookingHotelId, JSON.stringify({ kind: 'opentravel', endpointUrl: hotel.url, hotelCode: bookingHotelId })],
  );
  await post(apiPort, admin, 'POST', '/v1/admin/hotel-grants', { clientId: booker.clientId, hotelIds: [bookingHotelId] });
  const subscriptions: string[] = [];
  for (let index = 0; index < 6; index += 1) {
    const created = await post(apiPort, partner, 'POST', '/v1/hotels/push-subscriptions', {
      pushUrl: pushSink.url(`/sub-${index}`),
      apiKey: `key-${index}`,
      hotelIds,
      searches: { daysAhead: 2, nights: [1], guests: [2] },
    });
    subscriptions.push(String(created.subscriptionId));
  }
  await post(apiPort, forwarder, 'POST', '/Forwarding/bind', { recipient: mailRecipient, forwardsTo: mailDestination, keepSender: false });

  return {
    postgres,
    redis,
    db,
    web,
    sink,
    pushSink,
    smtpRefusing,
    roles,
    exits,
    recruiter,
    forwarder,
    partner,
    booker,
    sites,
    hotel,
    network,
    namespaces: network.namespaces,
    subscriptions,
    allReady,
    async restartMail(extra) {
      await Promise.all(roles.mail.map((role) => role.stop()));
      roles.mail = pair('mail', extra);
      await allReady();
    },
    async stop() {
      await Promise.all(all().map((role) => role.stop()));
      await db.end();
      await Promise.all([
        web.close(),
        sink.close(),
        ota.close(),
        pushSink.close(),
        dns.close(),
        hotel.close(),
        ...sites.map((site) => site.close()),
      ]);
      await redis.remove();
      await postgres.remove();
      await network.remove();
    },
  };
}

export const authorization = basic;
