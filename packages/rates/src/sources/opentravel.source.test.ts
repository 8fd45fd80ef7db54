import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HotelRateResult } from '@quarry/contracts';
import { createSafeFetch } from '@quarry/safe-fetch';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HotelRow } from '../hotels.queries.ts';
import { validateResult } from '../result-validation.ts';
import { buildHotelAvailRQ, createOpenTravelSource, mapHotelAvailRS } from './opentravel.source.ts';
import { SourceFailure } from './rate-source.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/opentravel/${name}`, import.meta.url), 'utf8');
const search = { hotelId: 'grand-central', checkIn: '2026-12-10', nights: 2, guests: 2 };
// The question our fixtures answer: the hotel code and EchoToken they carry.
const question = { ...search, hotelCode: 'GRANDCENTRAL', echoToken: 'grand-central:2026-12-10:2:2' };

function failureOf(work: () => unknown): SourceFailure {
  try {
    work();
  } catch (error) {
    if (error instanceof SourceFailure) return error;
    throw error;
  }
  throw new Error('expected a SourceFailure');
}

describe('official OpenTravel 2001B samples', () => {
  it('reads the single-hotel summary answer (old namespace) and refuses it: a nightly quote that changes during the stay is no stay total', () => {
    const failure = failureOf(() =>
      mapHotelAvailRS(fixture('OTA_HotelAvailRS - Single Sample.xml'), {
        ...search,
        checkIn: '2002-01-16',
        hotelCode: 'RD103',
        echoToken: '00006#1P#42251#AB345',
      }),
    );
    expect(failure.kind).toBe('InvalidResult');
    expect(failure.message).toBe('RD103: summary quote 85.66 USD (ChangeDuringStay) has no stay total');
  });

  it('reads every hotel of the multiple-hotel summary answer and names why none can be served (price ranges, FFR)', () => {
    const failure = failureOf(() =>
      mapHotelAvailRS(fixture('OTA_HotelAvailRS - Multiple Sample.xml'), {
        ...search,
        hotelCode: '395',
        echoToken: '123456#1P#020E2E#814F9',
      }),
    );
    expect(failure.kind).toBe('InvalidResult');
    expect(failure.message.split('; ')).toEqual([
      '395: summary quote 65.00-85.00 USD has no stay total',
      '231: summary quote 65.00-85.00 USD has no stay total',
      '122: summary quote 65.00-85.00 USD has no stay total',
      '154: summary quote 65.00-85.00 FFR has no stay total',
    ]);
  });

  it('builds a request carrying what the official request sample carries: hotel code, stay dates, guest count', () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true });
    const official = parser.parse(fixture('OTA_HotelAvailRQ - Single Sample.xml')).OTA_HotelAvailRQ.BookingSegments.BookingSegment;
    const ours = parser.parse(
      buildHotelAvailRQ({ hotelCode: 'RD103', chainCode: 'RD' }, { hotelId: 'x', checkIn: '2002-01-16', nights: 2, guests: 1 }, 'e1'),
    ).OTA_HotelAvailRQ.AvailRequestSegments.AvailRequestSegment;
    expect(ours.HotelSearchCriteria.Criterion.HotelRef['@HotelCode']).toBe(official.HotelReference['@HotelCode']);
    expect(ours.HotelSearchCriteria.Criterion.HotelRef['@ChainCode']).toBe(official.HotelReference['@ChainCode']);
    expect(ours.StayDateRange['@Start']).toBe(official.StayDateRange['@StartDate'].slice(0, 10));
    expect(ours.StayDateRange['@End']).toBe(official.StayDateRange['@EndDate'].slice(0, 10));
    expect(ours.RoomStayCandidates.RoomStayCandidate.GuestCounts.GuestCount['@Count']).toBe(
      official.RoomStayCandidates.RoomStayCandidate.GuestCount['@Count'],
    );
  });
});

describe('OTA 2015B RoomStays', () => {
  it('maps rooms, rate plans, stay totals, taxes and fees with our codes, meal plans and cancel penalties', () => {
    const rooms = mapHotelAvailRS(fixture('roomstays-2015b-usd.xml'), question);
    const validated = validateResult(search, rooms);
    expect(validated.ok).toBe(true);
    expect(rooms).toEqual([
      {
        id: 'KNG',
        name: 'Deluxe King Room',
        description: 'One king bed, city view, 32 m²',
        occupancy: 2,
        smoking: false,
        rates: [
          {
            id: 'KNG:BAR',
            name: 'Best Available Rate',
            description: 'Flexible rate, pay at the hotel',
            mealPlan: 'room-only',
            refundable: { available: true, untilDate: '2026-12-08', untilTime: '18:00' },
            baseRate: { currencyCode: 'usd', value: 41850 },
            taxes: [
              { type: 'NamedPrice', name: 'NYC hotel occupancy tax', code: 'city-tax', price: { currencyCode: 'usd', value: 2473 } },
              { type: 'NamedPrice', name: 'State sales tax', code: 'other-taxes', price: { currencyCode: 'usd', value: 3714 } },
            ],
            fees: [{ type: 'NamedPrice', name: 'Destination fee', code: 'resort-fee', price: { currencyCode: 'usd', value: 2792 } }],
          },
          {
            id: 'KNG:NRB',
            name: 'Non-refundable with breakfast',
            mealPlan: 'breakfast',
            refundable: { available: false },
            baseRate: { currencyCode: 'usd', value: 38000 },
            taxes: [{ type: 'NamedPrice', name: 'Taxes', code: 'other-taxes', price: { currencyCode: 'usd', value: 5130 } }],
          },
        ],
      },
      {
        id: 'QQ',
        name: 'Double Queen Room',
        occupancy: 4,
        rates: [
          {
            id: 'QQ:HB',
            name: 'Half board',
            mealPlan: 'half-board',
            refundable: { available: true, untilDate: '2026-12-07' },
            baseRate: { currencyCode: 'usd', value: 51000 },
            taxes: [],
          },
        ],
      },
    ]);
  });

  it('uses each currency’s real exponent (JPY 0, BHD 3) and reads SOAP-wrapped, prefixed messages', () => {
    const rooms = mapHotelAvailRS(fixture('roomstays-2015b-jpy-bhd.xml'), question);
    expect(rooms.map((room) => room.rates.map((rate) => [rate.baseRate, rate.taxes.map((tax) => [tax.code, tax.price.value])]))).toEqual([
      [
        [
          { currencyCode: 'jpy', value: 32000 },
          [
            ['city-tax', 200],
            ['other-taxes', 200],
          ],
        ],
      ],
      [[{ currencyCode: 'bhd', value: 95125 }, [['vat', 9925]]]],
    ]);
    expect(rooms[0]?.rates[0]?.mealPlan).toBe('half-board');
    expect(HotelRateResult.safeParse({ ...search, rooms }).success).toBe(true);
  });

  it('refuses rather than rounds or invents: extra decimals, taxes that do not add up, unknown currencies, no total', () => {
    const usd = fixture('roomstays-2015b-usd.xml');
    expect(
      failureOf(() => mapHotelAvailRS(usd.replace('AmountBeforeTax="380.00"', 'AmountBeforeTax="380.001"'), question)).message,
    ).toMatch(/more decimals than the currency/);
    expect(failureOf(() => mapHotelAvailRS(usd.replace('Amount="24.73"', 'Amount="24.74"'), question)).message).toMatch(/do not add up/);
    expect(failureOf(() => mapHotelAvailRS(usd.replaceAll('CurrencyCode="USD"', 'CurrencyCode="XXX"'), question)).message).toMatch(
      /XXX is not in the allowed list/,
    );
    expect(failureOf(() => mapHotelAvailRS(usd.replace(/<Total AmountBeforeTax="380.00"[^>]*\/>/, ''), question)).message).toMatch(
      /no stay Total/,
    );
  });

  it('reads the fees the schema puts in each Rate, once per stay, never twice when the stay level gives them too', () => {
    const rooms = mapHotelAvailRS(fixture('roomstays-2015b-rate-fees.xml'), question);
    expect(validateResult(search, rooms).ok).toBe(true);
    const rates = rooms.flatMap((room) =>
      room.rates.map((rate) => ({
        id: rate.id,
        baseRate: rate.baseRate.value,
        taxes: rate.taxes.map((tax) => [tax.code, tax.price.value]),
        fees: rate.fees?.map((fee) => [fee.code, fee.name, fee.price.value]),
      })),
    );
    expect(rates).toEqual([
      // Total (incl. fees) 230 before tax: the room is 200, the nightly resort fees 30; the included city fee is not added again.
      { id: 'KNG:BAR', baseRate: 20000, taxes: [['city-tax', 2300]], fees: [['resort-fee', 'Resort fee', 3000]] },
      // Fees charged beside the taxes: AmountAfterTax - AmountBeforeTax = VAT 18 + service 20.
      { id: 'KNG:SVC', baseRate: 18000, taxes: [['vat', 1800]], fees: [['service-fee', 'Fee', 2000]] },
      // The stay's resort fee (Tax Code 12) is the nights' Fees summed: counted once.
      { id: 'QQ:BAR', baseRate: 20000, taxes: [['city-tax', 2000]], fees: [['resort-fee', 'Resort fee', 3000]] },
    ]);
    // What the guest pays is the stay Total after tax, every time.
    const paid = rooms.flatMap((room) =>
      room.rates.map(
        (rate) => rate.baseRate.value + [...rate.taxes, ...(rate.fees ?? [])].reduce((sum, item) => sum + item.price.value, 0),
      ),
    );
    expect(paid).toEqual([25300, 21800, 25000]);
  });

  it('refuses per-rate fees that fit neither reading of the Total', () => {
    const xml = fixture('roomstays-2015b-rate-fees.xml').replace(
      'AmountBeforeTax="180.00" AmountAfterTax="218.00"',
      'AmountBeforeTax="180.00" AmountAfterTax="230.00"',
    );
    expect(failureOf(() => mapHotelAvailRS(xml, question)).message).toBe(
      'rate SVC: taxes and fees 3800 do not add up to AmountAfterTax - AmountBeforeTax = 5000',
    );
  });

  it('turns OTA errors into typed failures and an empty success into no availability', () => {
    const errors = (code: string, text: string) =>
      `<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05" EchoToken="${question.echoToken}"><Errors><Error Type="3" Code="${code}" ShortText="${text}"/></Errors></OTA_HotelAvailRS>`;
    expect(failureOf(() => mapHotelAvailRS(errors('322', 'No availability'), question)).kind).toBe('RoomsNotAvailable');
    expect(failureOf(() => mapHotelAvailRS(errors('392', 'Invalid hotel code'), question)).kind).toBe('HotelNotOnIbe');
    expect(failureOf(() => mapHotelAvailRS(errors('450', 'Unable to process'), question)).kind).toBe('SourceDown');
    expect(
      mapHotelAvailRS(
        `<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05" EchoToken="${question.echoToken}"><Success/><RoomStays/></OTA_HotelAvailRS>`,
        question,
      ),
    ).toEqual([]);
    expect(failureOf(() => mapHotelAvailRS('not xml <', question)).kind).toBe('InvalidResult');
  });
});

describe('OpenTravel adapter over HTTP', () => {
  let server: Server;
  let url: string;
  const received: string[] = [];
  /** Answers by HotelCode (the request's EchoToken replaces the fixture's); the USD fixture otherwise. */
  const answers: Record<string, string> = {};
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push(body);
        // The fixture answered for this request: its EchoToken is the one the request carried.
        const echoToken = /EchoToken="([^"]*)"/.exec(body)?.[1] ?? '';
        const answer = (answers[/HotelCode="([^"]*)"/.exec(body)?.[1] ?? ''] ?? fixture('roomstays-2015b-usd.xml')).replace(
          question.echoToken,
          echoToken,
        );
        if (body.includes('HotelCode="SLOW"')) return void setTimeout(() => response.end(answer), 2_000);
        if (body.includes('HotelCode="DOWN"')) return void response.writeHead(503).end('maintenance');
        response.writeHead(200, { 'content-type': 'text/xml' }).end(answer);
      });
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ota`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const hotel = (hotelCode: string, endpointUrl = url): HotelRow => ({
    hotelId: 'grand-central',
    name: 'Grand Central',
    ibe: 'ota',
    address: '',
    countryCode: 'us',
    bookingServiceId: null,
    guests: [2],
    bookingPageUrl: 'https://example.com',
    source: { kind: 'opentravel', endpointUrl, hotelCode },
  });

  it('posts an OTA_HotelAvailRQ and maps the answer; 5xx is SourceDown; a slow source is a Timeout', async () => {
    const source = createOpenTravelSource({ fetch: createSafeFetch({ allowPrivate: ['127.0.0.1'] }), timeoutMs: 500 });
    const ok = await source.search(hotel('GRANDCENTRAL'), search, new AbortController().signal);
    expect(ok.ok && ok.rooms.length).toBe(2);
    expect(received.at(-1)).toContain('<StayDateRange Start="2026-12-10" End="2026-12-12"/>');
    expect(await source.search(hotel('DOWN'), search, new AbortController().signal)).toMatchObject({ ok: false, kind: 'SourceDown' });
    expect(await source.search(hotel('SLOW'), search, new AbortController().signal)).toMatchObject({ ok: false, kind: 'Timeout' });
  });

  it('sends a new EchoToken with every request', async () => {
    const source = createOpenTravelSource({ fetch: createSafeFetch({ allowPrivate: ['127.0.0.1'] }), timeoutMs: 2_000 });
    const before = received.length;
    await source.search(hotel('GRANDCENTRAL'), search, new AbortController().signal);
    await source.search(hotel('GRANDCENTRAL'), search, new AbortController().signal);
    const tokens = received.slice(before).map((body) => /EchoToken="([^"]+)"/.exec(body)?.[1]);
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).toBeTruthy();
    expect(tokens[0]).not.toBe(tokens[1]);
  });

  it('refuses an answer to another question: EchoToken, hotel, dates, nights, guests; each a failure naming the difference', async () => {
    const usd = fixture('roomstays-2015b-usd.xml');
    const as = (code: string, xml = usd) => xml.replace('HotelCode="GRANDCENTRAL"', `HotelCode="${code}"`);
    Object.assign(answers, {
      STALE: as('STALE').replace(question.echoToken, 'an-earlier-request'),
      NOECHO: as('NOECHO').replace(` EchoToken="${question.echoToken}"`, ''),
      OTHERHOTEL: usd,
      OTHERDATE: as('OTHERDATE').replace(
        '<TimeSpan Start="2026-12-10" End="2026-12-12"/>',
        '<TimeSpan Start="2026-12-11" End="2026-12-13"/>',
      ),
      OTHERNIGHTS: as('OTHERNIGHTS').replace(
        '<TimeSpan Start="2026-12-10" End="2026-12-12"/>',
        '<TimeSpan Start="2026-12-10T00:00:00" Duration="P3N"/>',
      ),
      OTHERGUESTS: as('OTHERGUESTS').replace(
        '<GuestCount AgeQualifyingCode="10" Count="2"/>',
        '<GuestCount AgeQualifyingCode="10" Count="3"/>',
      ),
      CHILD: as('CHILD').replace(
        '<GuestCount AgeQualifyingCode="10" Count="2"/>',
        '<GuestCount AgeQualifyingCode="10" Count="2"/><GuestCount AgeQualifyingCode="8" Count="1"/>',
      ),
      STALEERROR: `<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05" EchoToken="an-earlier-request"><Errors><Error Type="3" Code="322" ShortText="No availability"/></Errors></OTA_HotelAvailRS>`,
      DURATION: as('DURATION').replace(
        '<TimeSpan Start="2026-12-10" End="2026-12-12"/>',
        '<TimeSpan Start="2026-12-10T14:00:00" Duration="P2N"/>',
      ),
    });
    const source = createOpenTravelSource({ fetch: createSafeFetch({ allowPrivate: ['127.0.0.1'] }), timeoutMs: 2_000 });
    const outcome = async (code: string) => {
      const result = await source.search(hotel(code), search, new AbortController().signal);
      return result.ok ? 'ok' : `${result.kind}: ${result.reason}`;
    };
    expect(await outcome('STALE')).toMatch(
      /^InvalidResult: the answer is not for the search asked: its EchoToken "an-earlier-request" is not the request's [0-9a-f-]{36}$/,
    );
    expect(await outcome('NOECHO')).toMatch(/^InvalidResult: .*carries no EchoToken/);
    expect(await outcome('OTHERHOTEL')).toBe(
      'InvalidResult: the answer is not for the search asked: HotelCode GRANDCENTRAL, asked OTHERHOTEL',
    );
    expect(await outcome('OTHERDATE')).toBe(
      'InvalidResult: the answer is not for the search asked: TimeSpan starts 2026-12-11, asked 2026-12-10',
    );
    expect(await outcome('OTHERNIGHTS')).toBe('InvalidResult: the answer is not for the search asked: TimeSpan lasts 3 nights, asked 2');
    expect(await outcome('OTHERGUESTS')).toBe(
      'InvalidResult: the answer is not for the search asked: GuestCounts are 3 adults, asked 2 adults',
    );
    expect(await outcome('CHILD')).toBe(
      'InvalidResult: the answer is not for the search asked: GuestCounts are 2 adults and 1 others, asked 2 adults',
    );
    // Not "no availability" for this stay: an error answering another request says nothing about this one.
    expect(await outcome('STALEERROR')).toMatch(/^InvalidResult: .*is not the request's .* \(it says: 322 No availability\)$/);
    expect(await outcome('DURATION')).toBe('ok');
  });

  it('goes through the SSRF guard: a loopback endpoint is refused without an allow-list entry', async () => {
    const source = createOpenTravelSource({ fetch: createSafeFetch({ allowPrivate: [] }), timeoutMs: 500 });
    const before = received.length;
    const outcome = await source.search(hotel('GRANDCENTRAL'), search, new AbortController().signal);
    expect(outcome).toMatchObject({ ok: false, kind: 'SourceDown' });
    expect(!outcome.ok && outcome.reason).toMatch(/Refused to fetch/);
    expect(received.length).toBe(before);
  });
});
