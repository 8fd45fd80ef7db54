import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeploymentKeyring, createSealer } from './deployment-keyring.ts';
import { countSealedByKey, resealColumns } from './reseal.ts';
import { atsCredentialRow, sealedColumns } from './sealed-columns.ts';

// Re-sealing on the real Postgres schema: values of before the keyring, of the key derived from
// QUARRY_SECRET_KEY and of the new key side by side, rows held by another transaction, a value
// copied to another row.
let database: TestDatabase;
let db: Pool;
const secretKey = randomBytes(32);
const k2 = { id: 'k2', material: randomBytes(32) };
const before = createSealer(secretKey);
const during = createDeploymentKeyring({ secretKey, keys: [k2], currentKeyId: 'k2' });
const after = createSealer(secretKey, createDeploymentKeyring({ secretKey, keys: [k2], currentKeyId: 'k2', openSecretKeySeals: false }));

/** AES-256-GCM under QUARRY_SECRET_KEY itself, no key id: how every value was sealed before the keyring. */
function sealedBeforeTheKeyring(plaintext: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secretKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

async function insertBooking(details: Buffer, panToken: Buffer, bookingId = randomUUID()): Promise<string> {
  await db.query(
    `INSERT INTO bookings (booking_id, client_id, hotel_id, check_in, nights, guests, room_id, rate_id, reference, details_sealed, pan_token_sealed)
     VALUES ($1, 'cl_keys', 'H1', '2027-01-10', 1, 2, 'STD', 'STD:FLEX', $2, $3, $4)`,
    [bookingId, `Q-${bookingId.slice(0, 8)}`, details, panToken],
  );
  return bookingId;
}

const openBooking = async (sealer: ReturnType<typeof createSealer>, bookingId: string) => {
  const row = (
    await db.query<{ details_sealed: Buffer; pan_token_sealed: Buffer }>(
      'SELECT details_sealed, pan_token_sealed FROM bookings WHERE booking_id = $1',
      [bookingId],
    )
  ).rows[0];
  if (!row) throw new Error(`no booking ${bookingId}`);
  return {
    details: sealer.open(sealedColumns.bookingDetails, bookingId, row.details_sealed),
    panToken: sealer.open(sealedColumns.bookingPanToken, bookingId, row.pan_token_sealed),
  };
};

beforeAll(async () => {
  database = await createTestDatabase('keyring-reseal');
  db = createPool(database.url, 4);
  await db.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('cl_keys', 'keys', '{booking}', '\\x01', $1)`,
    [sealedBeforeTheKeyring('qj_jwt')],
  );
}, 60_000);

afterAll(async () => {
  await db?.end();
  await database?.drop();
});

describe('resealColumns', () => {
  it('re-seals every value under the current key in batches, the old key then removable, every value still opening', async () => {
    const legacyBookings = await Promise.all(
      Array.from({ length: 7 }, (_, index) =>
        insertBooking(sealedBeforeTheKeyring(`{"guest":${index}}`), sealedBeforeTheKeyring(`v2:legacy-${index}`)),
      ),
    );
    const secretBookings: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const bookingId = randomUUID();
      secretBookings.push(
        await insertBooking(
          before.seal(sealedColumns.bookingDetails, bookingId, `{"guest":"s${index}"}`),
          before.seal(sealedColumns.bookingPanToken, bookingId, `v2:secret-${index}`),
          bookingId,
        ),
      );
    }
    await db.query('INSERT INTO callback_clients (client_id, secret_sealed, previous_secret_sealed) VALUES ($1, $2, $3)', [
      'cl_keys',
      before.seal(sealedColumns.callbackSecret, 'cl_keys', 'whsec_new'),
      // The previous secret was moved there by SQL from secret_sealed: it is bound to that column.
      before.seal(sealedColumns.callbackSecret, 'cl_keys', 'whsec_old'),
    ]);
    await db.query('INSERT INTO ats_credentials (client_id, ats, board, key_sealed) VALUES ($1, $2, $3, $4)', [
      'cl_keys',
      'lever',
      'acme',
      before.seal(sealedColumns.atsCredential, atsCredentialRow('cl_keys', 'lever', 'acme'), 'lever-key'),
    ]);

    const counted = Object.fromEntries((await countSealedByKey(db)).map((column) => [`${column.table}.${column.column}`, column.byKey]));
    expect(counted['bookings.details_sealed']).toEqual({ legacy: 7, secret: 5 });
    expect(counted['clients.jwt_secret_ciphertext']).toEqual({ legacy: 1 });

    const progress: string[] = [];
    const passes = await resealColumns(db, during, {
      batchSize: 3,
      onProgress: (step) => progress.push(`${step.table}.${step.column}:${step.resealed}`),
    });
    expect(passes.find((pass) => pass.column === 'details_sealed')).toEqual({
      table: 'bookings',
      column: 'details_sealed',
      resealed: 12,
      unreadable: 0,
    });
    // Batches of 3: progress is reported after each.
    expect(progress.filter((step) => step.startsWith('bookings.details_sealed'))).toEqual([
      'bookings.details_sealed:3',
      'bookings.details_sealed:6',
      'bookings.details_sealed:9',
      'bookings.details_sealed:12',
    ]);
    for (const column of await countSealedByKey(db)) {
      for (const keyId of Object.keys(column.byKey))
        expect(`${column.table}.${column.column}:${keyId}`).toBe(`${column.table}.${column.column}:k2`);
    }

    // The key derived from QUARRY_SECRET_KEY and the legacy layout are gone from the ring: every row still opens.
    for (const [index, bookingId] of legacyBookings.entries())
      expect(await openBooking(after, bookingId)).toEqual({ details: `{"guest":${index}}`, panToken: `v2:legacy-${index}` });
    for (const [index, bookingId] of secretBookings.entries())
      expect(await openBooking(after, bookingId)).toEqual({ details: `{"guest":"s${index}"}`, panToken: `v2:secret-${index}` });
    const client = (
      await db.query<{ jwt_secret_ciphertext: Buffer }>("SELECT jwt_secret_ciphertext FROM clients WHERE client_id = 'cl_keys'")
    ).rows[0];
    expect(after.open(sealedColumns.clientJwtSecret, 'cl_keys', client!.jwt_secret_ciphertext)).toBe('qj_jwt');
    const callbacks = (
      await db.query<{ secret_sealed: Buffer; previous_secret_sealed: Buffer }>(
        "SELECT secret_sealed, previous_secret_sealed FROM callback_clients WHERE client_id = 'cl_keys'",
      )
    ).rows[0];
    expect(after.open(sealedColumns.callbackSecret, 'cl_keys', callbacks!.secret_sealed)).toBe('whsec_new');
    expect(after.open(sealedColumns.callbackPreviousSecret, 'cl_keys', callbacks!.previous_secret_sealed)).toBe('whsec_old');
    const credential = (await db.query<{ key_sealed: Buffer }>("SELECT key_sealed FROM ats_credentials WHERE client_id = 'cl_keys'"))
      .rows[0];
    expect(after.open(sealedColumns.atsCredential, atsCredentialRow('cl_keys', 'lever', 'acme'), credential!.key_sealed)).toBe('lever-key');
  });

  it('leaves a row another transaction holds for the next pass, and counts a value copied from another row as unreadable', async () => {
    const held = await insertBooking(sealedBeforeTheKeyring('{"guest":"held"}'), sealedBeforeTheKeyring('v2:held'));
    const source = randomUUID();
    await insertBooking(
      before.seal(sealedColumns.bookingDetails, source, '{"guest":"source"}'),
      before.seal(sealedColumns.bookingPanToken, source, 'v2:source'),
      source,
    );
    // Someone with write access copies a booking's card token into another booking: it must not open there.
    const copy = await insertBooking(before.seal(sealedColumns.bookingDetails, randomUUID(), '{}'), Buffer.alloc(1));
    await db.query(
      'UPDATE bookings SET pan_token_sealed = (SELECT pan_token_sealed FROM bookings WHERE booking_id = $1) WHERE booking_id = $2',
      [source, copy],
    );
    await expect(openBooking(before, copy)).rejects.toThrow(/does not open/);

    const holder = await db.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM bookings WHERE booking_id = $1 FOR UPDATE', [held]);
      const passes = await resealColumns(db, during, { columns: [sealedColumns.bookingPanToken] });
      expect(passes).toEqual([{ table: 'bookings', column: 'pan_token_sealed', resealed: 1, unreadable: 1 }]);
      expect((await countSealedByKey(db, [sealedColumns.bookingPanToken]))[0]?.byKey).toMatchObject({ legacy: 1, secret: 1 });
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    const next = await resealColumns(db, during, { columns: [sealedColumns.bookingPanToken] });
    expect(next).toEqual([{ table: 'bookings', column: 'pan_token_sealed', resealed: 1, unreadable: 1 }]);
    expect(await openBooking(createSealer(secretKey, during), held)).toMatchObject({ panToken: 'v2:held' });
    await expect(openBooking(createSealer(secretKey, during), copy)).rejects.toThrow(/does not open/);
  });

  it('re-seals a column of large values in smaller transactions, whatever the batch size asked', async () => {
    for (let index = 0; index < 45; index += 1) {
      await db.query(
        `INSERT INTO applications (application_id, client_id, job_post_id, email_hash, ats_job, screenshot_sealed) VALUES ($1, 'cl_keys', $2, '\\x00', $2, $3)`,
        [randomUUID(), `post-${index}`, sealedBeforeTheKeyring(randomBytes(1_000).toString('base64'))],
      );
    }
    const progress: number[] = [];
    await resealColumns(db, during, { columns: [sealedColumns.applicationScreenshot], onProgress: (step) => progress.push(step.resealed) });
    expect(progress).toEqual([20, 40, 45]);
    expect((await countSealedByKey(db, [sealedColumns.applicationScreenshot]))[0]?.byKey).toEqual({ k2: 45 });
  });
});
