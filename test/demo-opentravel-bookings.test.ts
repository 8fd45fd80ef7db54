import type { Price, Rate } from '@quarry/contracts';
import { createOpenTravelBookingEngine, type BookingEngine, type Order } from '@quarry/bookings';
import { startDemoSites, type DemoSites } from '@quarry/demo';
import type { HotelRow } from '@quarry/rates';
import { createSafeFetch, type SafeFetch } from '@quarry/safe-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The demo's OpenTravel endpoint books as a hotel's does, driven by Quarry's own OpenTravel booking
 * engine over loopback: OTA_HotelResRQ, OTA_ReadRQ, OTA_CancelRQ, the named demo cards (refused;
 * challenged with 3-D Secure, completed on the demo issuer's page), and what it received at
 * GET /reservations, with no card number in it.
 */
let sites: DemoSites;
let fetch: SafeFetch;
let engine: BookingEngine;
let harbour: HotelRow;
const checkIn = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
const stay = { checkIn, nights: 2, guests: 2 };
let sequence = 0;

const totalOf = (rate: Rate): Price => ({
  currencyCode: rate.baseRate.currencyCode,
  value: [rate.baseRate, ...rate.taxes.map((tax) => tax.price), ...(rate.fees ?? []).map((fee) => fee.price)].reduce(
    (sum, part) => sum + part.value,
    0,
  ),
});

async function order(pan: string, total?: Price): Promise<Order> {
  const repriced = await engine.reprice(harbour, stay, AbortSignal.timeout(10_000));
  if (!repriced.ok) throw new Error(repriced.reason);
  const rate = repriced.rooms.find((room) => room.id === 'DBL')!.rates.find((candidate) => candidate.id === 'DBL:FLEX')!;
  sequence += 1;
  return {
    reference: `QBDEMO${process.pid}X${sequence}`,
    stay,
    roomId: 'DBL',
    rateId: 'DBL:FLEX',
    total: total ?? totalOf(rate),
    mainGuest: { firstName: 'Ada', lastName: 'Lovelace' },
    otherGuests: [{ firstName: 'Charles', lastName: 'Babbage' }],
    contact: { email: 'ada@example.com', phone: '+44 20 7946 0000' },
    card: { pan, expiryMonth: 12, expiryYear: 2031, name: 'Ada Lovelace', cvv: '123' },
  };
}

beforeAll(async () => {
  sites = await startDemoSites({ host: '127.0.0.1', port: 0, smtpPort: 0 });
  fetch = createSafeFetch({ allowPrivate: ['127.0.0.1'], timeoutMs: 10_000 });
  engine = createOpenTravelBookingEngine({ fetch, timeoutMs: 10_000 });
  harbour = {
    hotelId: 'demo-harbour',
    name: 'Harbour View Hotel',
    ibe: 'demo-ibe',
    address: 'Rua do Cais 12',
    countryCode: 'pt',
    bookingServiceId: null,
    guests: [1, 2],
    bookingPageUrl: `${sites.origin}/booking/search.html?hotel=HARBOUR`,
    source: { kind: 'opentravel', endpointUrl: `${sites.origin}/ota`, hotelCode: 'HARBOUR' },
  };
});

afterAll(async () => {
  await fetch?.close();
  await sites?.close();
});

describe("the demo's OpenTravel hotels book", () => {
  it("OTA_HotelResRQ confirms with the hotel's number, OTA_ReadRQ finds it by our reference, /reservations lists it without the card number", async () => {
    const placed = await order('4111111111111111');
    const outcome = await engine.placeOrder(harbour, placed, AbortSignal.timeout(10_000));
    expect(outcome).toMatchObject({
      status: 'confirmed',
      confirmation: { reference: expect.stringMatching(/^HA-[0-9A-F]{8}$/), message: 'Check-in from 15:00', price: placed.total },
    });
    const found = await engine.findOrderByReference(harbour, placed.reference, AbortSignal.timeout(10_000));
    expect(found).toEqual({
      status: 'confirmed',
      confirmation: { reference: outcome.status === 'confirmed' ? outcome.confirmation.reference : '', price: placed.total },
    });
    expect(await engine.findOrderByReference(harbour, 'QBNOSUCHREFERENCE', AbortSignal.timeout(10_000))).toEqual({ status: 'notFound' });
    const listed = await (await globalThis.fetch(`${sites.origin}/reservations`)).text();
    expect(listed).not.toContain('4111111111111111');
    const reservation = (JSON.parse(listed) as Array<Record<string, unknown>>).find(
      (candidate) => candidate.reference === placed.reference,
    );
    expect(reservation).toMatchObject({
      hotelCode: 'HARBOUR',
      status: 'Committed',
      roomTypeCode: 'DBL',
      ratePlanCode: 'FLEX',
      start: checkIn,
      guests: ['Ada Lovelace', 'Charles Babbage'],
      cardLast4: '1111',
      cvvReceived: true,
      received: [expect.objectContaining({ message: 'OTA_HotelResRQ' }), expect.objectContaining({ message: 'OTA_ReadRQ' })],
    });
  });

  it('the same reference twice is a duplicate; a changed total is a changed price; the declined demo card is a refused payment', async () => {
    const placed = await order('4111111111111111');
    expect((await engine.placeOrder(harbour, placed, AbortSignal.timeout(10_000))).status).toBe('confirmed');
    expect(await engine.placeOrder(harbour, placed, AbortSignal.timeout(10_000))).toMatchObject({
      status: 'failed',
      code: 'DuplicateBooking',
    });
    const cheaper = await order('4111111111111111');
    expect(
      await engine.placeOrder(
        harbour,
        { ...cheaper, total: { ...cheaper.total, value: cheaper.total.value - 100 } },
        AbortSignal.timeout(10_000),
      ),
    ).toMatchObject({ status: 'failed', code: 'PriceChangedAfterConsent' });
    expect(await engine.placeOrder(harbour, await order('4000000000000002'), AbortSignal.timeout(10_000))).toEqual({
      status: 'failed',
      code: 'PaymentRejected',
      message: '450 Unable to authorize – please enter alternate credit card',
    });
  });

  it('the challenged demo card: a 3-D Secure challenge on the demo issuer, completed with its code; the reservation is then confirmed', async () => {
    const placed = await order('4000000000003220');
    const outcome = await engine.placeOrder(harbour, placed, AbortSignal.timeout(10_000));
    if (outcome.status !== 'challenge') throw new Error(`expected a challenge, got ${JSON.stringify(outcome)}`);
    expect(outcome.challenge.acsUrl).toBe(`${sites.origin}/acs/challenge`);
    expect((await engine.continueAfterChallenge(harbour, placed.reference, AbortSignal.timeout(10_000))).status).toBe('challenge');
    // What the client's /book/{id}/tds page posts, then the card holder's code.
    const form = new URLSearchParams({ creq: outcome.challenge.creq, threeDSSessionData: outcome.challenge.threeDSSessionData ?? '' });
    const challengePage = await (await globalThis.fetch(outcome.challenge.acsUrl, { method: 'POST', body: form })).text();
    expect(challengePage).toContain('demo code 123456');
    const reference = /name="reference" value="([^"]+)"/.exec(challengePage)?.[1] ?? '';
    const verified = await (
      await globalThis.fetch(`${sites.origin}/acs/verify`, { method: 'POST', body: new URLSearchParams({ reference, otp: '123456' }) })
    ).text();
    expect(verified).toContain('Payment confirmed');
    expect(await engine.continueAfterChallenge(harbour, placed.reference, AbortSignal.timeout(10_000))).toMatchObject({
      status: 'confirmed',
      confirmation: { price: placed.total },
    });
  });

  it('a wrong code fails the payment; OTA_CancelRQ cancels a reservation held pending its challenge', async () => {
    const failed = await order('4000000000003220');
    await engine.placeOrder(harbour, failed, AbortSignal.timeout(10_000));
    await globalThis.fetch(`${sites.origin}/acs/verify`, {
      method: 'POST',
      body: new URLSearchParams({ reference: failed.reference, otp: '000000' }),
    });
    expect(await engine.continueAfterChallenge(harbour, failed.reference, AbortSignal.timeout(10_000))).toMatchObject({
      status: 'failed',
      code: 'PaymentRejected',
    });
    const expired = await order('4000000000003220');
    await engine.placeOrder(harbour, expired, AbortSignal.timeout(10_000));
    expect(await engine.cancelOrder!(harbour, expired.reference, AbortSignal.timeout(10_000))).toEqual({ status: 'cancelled' });
    expect(await engine.cancelOrder!(harbour, 'QBNOSUCHREFERENCE', AbortSignal.timeout(10_000))).toEqual({ status: 'notFound' });
  });
});
