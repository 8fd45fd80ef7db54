import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPool, migrateToLatest, type Pool } from '@quarry/db';
import { createSealer, sealedColumns } from '@quarry/keyring';
import { createSafeFetch, UnsafeUrlError } from '@quarry/safe-fetch';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifyBooking } from './notify-booking.ts';

/**
 * A callback goes through the SSRF guard at each delivery, not only when the booking was created:
 * a name may resolve to a private address later, and a row may hold a URL stored under a laxer
 * policy. Real Postgres, a real receiver on loopback, the real guard.
 */
let database: TestDatabase;
let db: Pool;
let receiver: Server;
let received = 0;
let lastBody = '';
const sealer = createSealer(Buffer.alloc(32, 3));

beforeAll(async () => {
  database = await createTestDatabase('notify-booking');
  await migrateToLatest(database.url);
  db = createPool(database.url, 2);
  await db.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('cl_hook', 'hook', '{booking}', '\\x01', '\\x00')`,
  );
  receiver = createServer((request, response) => {
    received += 1;
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      lastBody = body;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
}, 30_000);

afterAll(async () => {
  receiver?.close();
  await db?.end();
  await database?.drop();
});

async function bookingWithCallback(callbackUrl: string): Promise<string> {
  const bookingId = randomUUID();
  await db.query(
    `INSERT INTO bookings (booking_id, client_id, hotel_id, check_in, nights, guests, room_id, rate_id, reference, callback_url, webhook_secret_sealed)
     VALUES ($1, 'cl_hook', 'H1', '2027-01-10', 1, 2, 'STD', 'STD:FLEX', $2, $3, $4)`,
    [
      bookingId,
      `Q-${bookingId.slice(0, 8)}`,
      callbackUrl,
      sealer.seal(sealedColumns.bookingWebhookSecret, bookingId, `whsec_${Buffer.alloc(32, 7).toString('base64')}`),
    ],
  );
  return bookingId;
}

describe('booking callbacks', () => {
  it('are refused at delivery when the URL is private, and nothing reaches it', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const bookingId = await bookingWithCallback(url);
    const guarded = createSafeFetch({ allowPrivate: [] });
    await expect(
      notifyBooking({ pool: db, sealer, fetchCallback: guarded }, { bookingId, seq: 0 }, AbortSignal.timeout(5_000)),
    ).rejects.toBeInstanceOf(UnsafeUrlError);
    expect(received).toBe(0);
    // The same delivery where the operator allowed that address: it arrives (the refusal above was the policy's).
    const allowed = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
    await expect(
      notifyBooking({ pool: db, sealer, fetchCallback: allowed }, { bookingId, seq: 0 }, AbortSignal.timeout(5_000)),
    ).resolves.toMatchObject({ delivered: true, status: 204 });
    expect(received).toBe(1);
  });

  it("show the hotel's ACS URL only under the policy of GET /book/{id}: an http: or private one is left out and named", async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const allowed = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
    const challenged = async (acsUrl: string) => {
      const bookingId = await bookingWithCallback(url);
      await db.query(`UPDATE bookings SET stage = 'awaitingTdsChallenge', state = 'pending', tds_challenge = $2 WHERE booking_id = $1`, [
        bookingId,
        JSON.stringify({ version: '2.2.0', acsUrl, creq: 'Y3JlcQ', windowSize: '02', expiresAt: '2027-01-01T00:00:00.000Z' }),
      ]);
      await notifyBooking({ pool: db, sealer, fetchCallback: allowed }, { bookingId, seq: 1 }, AbortSignal.timeout(5_000));
      return (JSON.parse(lastBody) as { data: { tdsChallenge: Record<string, unknown> } }).data.tdsChallenge;
    };
    expect(await challenged('http://acs.example.com/challenge')).toMatchObject({
      creq: 'Y3JlcQ',
      acsUrlRefused: expect.stringContaining('tdsChallenge.acsUrl is not an https: URL'),
    });
    expect(await challenged('https://10.1.2.3/acs')).not.toHaveProperty('acsUrl');
    expect(await challenged('https://93.184.215.14/acs')).toMatchObject({ acsUrl: 'https://93.184.215.14/acs' });
  });
});
