import { AppError, describeIssues, HotelGrantBody, UpsertHotelBody, validationError, type HotelListing } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import {
  clientExists,
  deleteGrants,
  deleteHotelRow,
  findGrantedHotelRow,
  findHotelRow,
  insertGrants,
  insertRedirectClick,
  listAllHotelRows,
  listGrantedHotelRows,
  upsertHotelRow,
  type HotelRow,
} from './hotels.queries.ts';
import { bumpSubscriptionsOfClient } from './push.queries.ts';
import { listSourceFailures } from './rate-results.queries.ts';
import type { EnqueuePush } from './refresh-search.ts';

export function toListing(row: HotelRow): HotelListing {
  return {
    hotelId: row.hotelId,
    name: row.name,
    ibe: row.ibe,
    address: row.address,
    bookingServiceId: row.bookingServiceId,
    countryCode: row.countryCode,
    guests: row.guests,
  };
}

/**
 * Plain HTTP for the URLs that receive card data: refused (PCI DSS 4.2.1), except, with the
 * development allowance (`ALLOW_LOOPBACK_HTTP_HOTELS`), on a loopback address, where test and demo
 * hotels run; each one taken that way is logged.
 */
export type CardTransportPolicy = {
  allowLoopbackHttp: boolean;
  warn?: (fields: Record<string, unknown>, message: string) => void;
};

/** 127.0.0.0/8, ::1 and `localhost`: the card data never leaves the machine. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The fields of a hotel whose URL receives the card: its booking page (typed into) and its OpenTravel endpoint (`OTA_HotelResRQ`). */
function cardDataUrls(hotel: UpsertHotelBody): Array<{ field: string; url: string }> {
  const urls = [{ field: 'bookingPageUrl', url: hotel.bookingPageUrl }];
  if (hotel.source.kind === 'opentravel') urls.push({ field: 'source.endpointUrl', url: hotel.source.endpointUrl });
  return urls;
}

function refuseCardDataOverHttp(hotel: UpsertHotelBody, policy: CardTransportPolicy): void {
  const problems: string[] = [];
  const allowed: Array<{ field: string; url: string }> = [];
  for (const { field, url } of cardDataUrls(hotel)) {
    const parsed = new URL(url);
    if (parsed.protocol === 'https:') continue;
    if (policy.allowLoopbackHttp && isLoopbackHost(parsed.hostname)) {
      allowed.push({ field, url });
      continue;
    }
    problems.push(`${field}: must be an https: URL: it receives card numbers, which never travel over plain HTTP`);
  }
  if (problems.length > 0) throw validationError(problems);
  for (const { field, url } of allowed) {
    policy.warn?.(
      { hotelId: hotel.hotelId, field, url },
      'card data to a loopback hotel over plain HTTP (ALLOW_LOOPBACK_HTTP_HOTELS, for tests and the demo only)',
    );
  }
}

/** Operator: add or replace a hotel of the registry. Without a policy, plain HTTP is refused everywhere. */
export async function upsertHotel(ports: { db: Queryable; cardTransport?: CardTransportPolicy }, body: unknown): Promise<HotelRow> {
  const parsed = UpsertHotelBody.safeParse(body);
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  refuseCardDataOverHttp(parsed.data, ports.cardTransport ?? { allowLoopbackHttp: false });
  return upsertHotelRow(ports.db, parsed.data);
}

export async function removeHotel(ports: { db: Queryable }, hotelId: string): Promise<void> {
  if (!(await deleteHotelRow(ports.db, hotelId))) throw new AppError('NotFound', `hotel ${hotelId} not found`);
}

/** Operator: the whole registry, with sources. */
export async function listHotelsForOperator(ports: {
  db: Queryable;
}): Promise<Array<HotelListing & { bookingPageUrl: string; source: HotelRow['source'] }>> {
  return (await listAllHotelRows(ports.db)).map((row) => ({ ...toListing(row), bookingPageUrl: row.bookingPageUrl, source: row.source }));
}

/** Operator: why a hotel's searches failed lately (invalid results, sources down), newest first. */
export async function listHotelSourceFailures(ports: { db: Queryable }, hotelId: string) {
  await getHotelForOperator(ports, hotelId);
  return (await listSourceFailures(ports.db, hotelId)).map((failure) => ({ ...failure, failedAt: failure.failedAt.toISOString() }));
}

export async function getHotelForOperator(ports: { db: Queryable }, hotelId: string): Promise<HotelRow> {
  const row = await findHotelRow(ports.db, hotelId);
  if (!row) throw new AppError('NotFound', `hotel ${hotelId} not found`);
  return row;
}

/** Operator: grants (or revokes) a client's access to hotels; its subscriptions get a new state. */
export async function changeGrants(
  ports: { db: Queryable; enqueuePush: EnqueuePush },
  body: unknown,
  change: 'grant' | 'revoke',
): Promise<{ clientId: string; hotelIds: string[] }> {
  const parsed = HotelGrantBody.safeParse(body);
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const { clientId, hotelIds } = parsed.data;
  if (!(await clientExists(ports.db, clientId))) throw validationError([`clientId: no active client ${clientId}`]);
  if (change === 'grant') {
    const unknown = await insertGrants(ports.db, clientId, hotelIds);
    if (unknown.length > 0) throw validationError(unknown.map((hotelId) => `hotelIds: no hotel ${hotelId}`));
  } else {
    await deleteGrants(ports.db, clientId, hotelIds);
  }
  for (const subscription of await bumpSubscriptionsOfClient(ports.db, clientId)) {
    await ports.enqueuePush(subscription.subscriptionId, `v${subscription.version}`);
  }
  return { clientId, hotelIds };
}

const LIMIT_DEFAULT = 100;
const LIMIT_MAX = 1000;

function parsePage(query: Record<string, unknown>): { limit: number; offset: number } {
  const messages: string[] = [];
  const read = (name: string, fallback: number, min: number, max: number) => {
    const raw = query[name];
    if (raw === undefined) return fallback;
    const text = Array.isArray(raw) ? undefined : String(raw);
    const value = Number(text);
    if (text === undefined || !/^\d+$/.test(text) || value < min || value > max) {
      messages.push(`${name} must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return value;
  };
  const limit = read('limit', LIMIT_DEFAULT, 1, LIMIT_MAX);
  const offset = read('offset', 0, 0, Number.MAX_SAFE_INTEGER);
  if (messages.length > 0) throw validationError(messages);
  return { limit, offset };
}

export async function listHotels(ports: { db: Queryable }, clientId: string, query: Record<string, unknown>): Promise<HotelListing[]> {
  return (await listGrantedHotelRows(ports.db, clientId, parsePage(query))).map(toListing);
}

export async function getHotel(ports: { db: Queryable }, clientId: string, hotelId: unknown): Promise<HotelListing> {
  if (typeof hotelId !== 'string' || hotelId === '') throw validationError(['hotelId is required']);
  if (hotelId.length > 200) throw validationError(['hotelId must be at most 200 characters']);
  const row = await findGrantedHotelRow(ports.db, clientId, hotelId);
  if (!row) throw new AppError('NotFound', `hotel ${hotelId} not found`);
  return toListing(row);
}

/**
 * `GET /redirect`: a link end users click, so it carries no credential. With `clientId` the hotel
 * must be granted to that client (the pair identifies the hotel); the click is recorded either way.
 */
export async function redirectToBookingPage(
  ports: { db: Queryable },
  query: Record<string, unknown>,
  userAgent: string | undefined,
): Promise<string> {
  const hotelId = typeof query.hotelId === 'string' ? query.hotelId : '';
  const clientId = typeof query.clientId === 'string' && query.clientId !== '' ? query.clientId : null;
  if (hotelId === '') throw validationError(['hotelId is required']);
  const row = clientId ? await findGrantedHotelRow(ports.db, clientId, hotelId) : await findHotelRow(ports.db, hotelId);
  if (!row) throw new AppError('NotFound', `hotel ${hotelId} not found`);
  await insertRedirectClick(ports.db, { hotelId, clientId, userAgent: userAgent?.slice(0, 500) ?? null });
  return row.bookingPageUrl;
}
