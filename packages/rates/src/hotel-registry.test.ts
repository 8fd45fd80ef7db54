import { AppError } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHotelRow } from './hotels.queries.ts';
import { upsertHotel, type CardTransportPolicy } from './hotel-registry.ts';

/** Registration refuses every URL that would receive card data over plain HTTP (PCI DSS 4.2.1), on the real Postgres. */
let database: TestDatabase;
let db: Pool;

beforeAll(async () => {
  database = await createTestDatabase('rates_registry_tls');
  db = createPool(database.url, 2);
});

afterAll(async () => {
  await db?.end();
  await database?.drop();
});

const otaHotel = (hotelId: string, endpointUrl: string, bookingPageUrl: string) => ({
  hotelId,
  name: hotelId,
  ibe: 'ota',
  address: '',
  countryCode: 'gb',
  bookingPageUrl,
  source: { kind: 'opentravel', endpointUrl, hotelCode: hotelId },
});

async function refusal(body: unknown, cardTransport?: CardTransportPolicy): Promise<string[]> {
  const error = await upsertHotel({ db, ...(cardTransport ? { cardTransport } : {}) }, body).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('RequestParametersValidationError');
  return (error as AppError).details.messages ?? [];
}

describe('card data only over TLS', () => {
  it('refuses an http: OpenTravel endpoint and an http: booking page, naming each field; nothing is stored', async () => {
    const messages = await refusal(otaHotel('H-PLAIN', 'http://ota.example.com/ota', 'http://book.example.com/'));
    expect(messages.map((message) => message.split(':')[0])).toEqual(['bookingPageUrl', 'source.endpointUrl']);
    expect(messages.join('\n')).toMatch(/must be an https: URL/);
    expect(await findHotelRow(db, 'H-PLAIN')).toBeNull();
  });

  it('refuses an http: booking page of a booking-page hotel', async () => {
    const body = {
      ...otaHotel('H-PAGE', 'https://unused.example.com/', 'http://book.example.com/'),
      source: { kind: 'booking-page', engine: 'demo-ibe' },
    };
    expect((await refusal(body)).map((message) => message.split(':')[0])).toEqual(['bookingPageUrl']);
  });

  it('with the development allowance, takes http: on a loopback address only, and logs each one it takes', async () => {
    const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const cardTransport: CardTransportPolicy = {
      allowLoopbackHttp: true,
      warn: (fields, message) => void warnings.push({ fields, message }),
    };
    // Not loopback: refused even with the allowance (a test hotel runs on this machine).
    for (const host of ['ota.example.com', '10.0.0.5', '127.0.0.1.nip.io']) {
      expect(await refusal(otaHotel('H-REMOTE', `http://${host}/ota`, 'https://book.example.com/'), cardTransport)).toEqual([
        expect.stringMatching(/^source\.endpointUrl: must be an https: URL/),
      ]);
    }
    const row = await upsertHotel({ db, cardTransport }, otaHotel('H-LOOP', 'http://127.0.0.77:8090/ota', 'http://[::1]:8090/booking'));
    expect(row.source).toMatchObject({ endpointUrl: 'http://127.0.0.77:8090/ota' });
    expect(warnings.map((warning) => warning.fields)).toEqual([
      { hotelId: 'H-LOOP', field: 'bookingPageUrl', url: 'http://[::1]:8090/booking' },
      { hotelId: 'H-LOOP', field: 'source.endpointUrl', url: 'http://127.0.0.77:8090/ota' },
    ]);
    expect(warnings[0]?.message).toMatch(/ALLOW_LOOPBACK_HTTP_HOTELS/);
  });

  it('without the allowance (the default), refuses http: on loopback too', async () => {
    expect(
      (await refusal(otaHotel('H-LOOP2', 'http://127.0.0.1:9/ota', 'https://book.example.com/'))).map((message) => message.split(':')[0]),
    ).toEqual(['source.endpointUrl']);
    expect(
      (await refusal(otaHotel('H-LOOP2', 'http://127.0.0.1:9/ota', 'https://book.example.com/'), { allowLoopbackHttp: false })).length,
    ).toBe(1);
  });

  it('takes https: everywhere', async () => {
    const row = await upsertHotel({ db }, otaHotel('H-TLS', 'https://ota.example.com/ota', 'https://book.example.com/'));
    expect(row.bookingPageUrl).toBe('https://book.example.com/');
  });
});
