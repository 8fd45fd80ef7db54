import { createCipheriv, randomBytes } from 'node:crypto';
import { submitApplication, type ApplicationsPorts } from '@quarry/applications';
import { createClient } from '@quarry/auth';
import { createBooking, type BookingsPorts } from '@quarry/bookings';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, enqueuer, type JobQueues } from '@quarry/jobs';
import { createDeploymentKeyring, createSealer, sealedColumns, type Sealer } from '@quarry/keyring';
import { findGrantedHotelRow } from '@quarry/rates';
import { createTestDatabase, createTestRedis, quarryEnv, type TestDatabase, type TestRedis } from '@quarry/testing';
import { noCardVault } from '@quarry/vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuarry } from './support/quarry-process.ts';

/**
 * A key rotation while the service runs (ADR 0059): rows sealed before the keyring and with the key
 * derived from QUARRY_SECRET_KEY are re-sealed by `quarry keys rotate`, a real process, while
 * bookings and applications are created and read; nothing fails meanwhile, and once the old key is
 * out of the environment every value of every sealed column still opens.
 */
const secretKey = randomBytes(32);
const newKey = { id: 'k2', material: randomBytes(32) };
const checkIn = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: ReturnType<typeof createRedis>;
let queues: JobQueues;
let clientId: string;

const before = createSealer(secretKey);
const during = createSealer(secretKey, createDeploymentKeyring({ secretKey, keys: [newKey], currentKeyId: 'k2' }));
const after = createSealer(
  secretKey,
  createDeploymentKeyring({ secretKey, keys: [newKey], currentKeyId: 'k2', openSecretKeySeals: false }),
);

/** AES-256-GCM under QUARRY_SECRET_KEY itself, no key id: how every value was sealed before the keyring. */
function sealedBeforeTheKeyring(plaintext: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secretKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

const bookingsPorts = (sealer: Sealer): BookingsPorts => ({
  pool: db,
  sealer,
  vault: noCardVault,
  findGrantedHotel: (client, hotelId) => findGrantedHotelRow(db, client, hotelId),
  enqueueStep: enqueuer(queues, 'bookings.step'),
  enqueueNotify: enqueuer(queues, 'bookings.notify'),
  checkCallbackUrl: async () => undefined,
});
const applicationsPorts = (sealer: Sealer): ApplicationsPorts => ({
  pool: db,
  sealer,
  findMinedPost: async () => null,
  enqueueApply: enqueuer(queues, 'applications.apply'),
});

async function book(sealer: Sealer, index: number): Promise<string> {
  const { bookingId } = await createBooking(bookingsPorts(sealer), clientId, {
    hotelId: 'H-KEYS',
    checkIn,
    nights: 1,
    guests: 2,
    roomId: 'STD',
    rateId: 'STD:FLEX',
    callbackUrl: 'https://hooks.example.com/quarry',
  });
  // The guests and the card token, as POST /book seals them.
  await db.query('UPDATE bookings SET details_sealed = $2, pan_token_sealed = $3 WHERE booking_id = $1', [
    bookingId,
    sealer.seal(sealedColumns.bookingDetails, bookingId, JSON.stringify({ guest: index })),
    sealer.seal(sealedColumns.bookingPanToken, bookingId, `v2:token-${index}`),
  ]);
  return bookingId;
}

async function apply(sealer: Sealer, index: number): Promise<string> {
  const { applicationId } = await submitApplication(applicationsPorts(sealer), clientId, {
    jobPostId: `post-${index}`,
    url: `https://jobs.example.com/post-${index}`,
    candidate: { email: `candidate-${index}@example.com`, firstName: 'Ada', lastName: `Lovelace ${index}` },
    files: { cv: { type: 'File', url: 'https://files.example.com/cv.pdf', filename: 'cv.pdf' } },
  });
  return applicationId;
}

/** Opens the booking's and application's sealed values as the service does. */
async function readBack(sealer: Sealer, bookingId: string, applicationId: string): Promise<void> {
  const booking = (
    await db.query<{ details_sealed: Buffer; pan_token_sealed: Buffer; webhook_secret_sealed: Buffer }>(
      'SELECT details_sealed, pan_token_sealed, webhook_secret_sealed FROM bookings WHERE booking_id = $1',
      [bookingId],
    )
  ).rows[0];
  if (!booking) throw new Error(`booking ${bookingId} is gone`);
  JSON.parse(sealer.open(sealedColumns.bookingDetails, bookingId, booking.details_sealed));
  expect(sealer.open(sealedColumns.bookingPanToken, bookingId, booking.pan_token_sealed)).toMatch(/^v2:/);
  expect(sealer.open(sealedColumns.bookingWebhookSecret, bookingId, booking.webhook_secret_sealed)).toMatch(/^whsec_/);
  const application = (await db.query<{ sealed: Buffer }>('SELECT sealed FROM applications WHERE application_id = $1', [applicationId]))
    .rows[0];
  if (!application) throw new Error(`application ${applicationId} is gone`);
  expect(JSON.parse(sealer.open(sealedColumns.application, applicationId, application.sealed))).toMatchObject({
    candidate: { firstName: 'Ada' },
  });
}

const env = (keys: Record<string, string>) => ({
  ...quarryEnv({ database, redis: testRedis, secretKey }),
  QUARRY_KEYS: `k2:${newKey.material.toString('base64')}`,
  QUARRY_CURRENT_KEY_ID: 'k2',
  ...keys,
});

beforeAll(async () => {
  database = await createTestDatabase('keys-rotation');
  testRedis = createTestRedis('keys-rotation');
  db = createPool(database.url, 8);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  clientId = (await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking', 'recruitment'] })).clientId;
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ('H-KEYS', 'H-KEYS', 'opentravel', '1 Main St', 'us', NULL, '{2}', 'https://book.example.com', $1)`,
    [JSON.stringify({ kind: 'opentravel', endpointUrl: 'https://ota.example.com', hotelCode: 'H-KEYS' })],
  );
  await db.query('INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, $2)', [clientId, 'H-KEYS']);
}, 60_000);

afterAll(async () => {
  await queues?.close();
  redis?.disconnect();
  await db?.end();
  await database?.drop();
  await testRedis?.cleanup();
});

describe('quarry keys rotate', () => {
  it('re-seals every row while bookings and applications are made and read, then the old key can go', async () => {
    // What a deployment with QUARRY_SECRET_KEY alone stored: half with the derived key, half from before the keyring.
    const old: Array<{ bookingId: string; applicationId: string }> = [];
    for (let index = 0; index < 120; index += 1)
      old.push({ bookingId: await book(before, index), applicationId: await apply(before, index) });
    for (const { bookingId, applicationId } of old.slice(0, 60)) {
      await db.query('UPDATE bookings SET details_sealed = $2, pan_token_sealed = $3, webhook_secret_sealed = $4 WHERE booking_id = $1', [
        bookingId,
        sealedBeforeTheKeyring('{"guest":"legacy"}'),
        sealedBeforeTheKeyring('v2:legacy'),
        sealedBeforeTheKeyring('whsec_legacy'),
      ]);
      await db.query('UPDATE applications SET sealed = $2 WHERE application_id = $1', [
        applicationId,
        sealedBeforeTheKeyring(
          JSON.stringify({
            candidate: { firstName: 'Ada', lastName: 'Legacy', email: 'legacy@example.com' },
            files: { cv: { type: 'File', url: 'https://files.example.com/cv.pdf', filename: 'cv.pdf' } },
            answers: [],
          }),
        ),
      ]);
    }

    const status = async (keys: Record<string, string>) => {
      const result = await runQuarry(['keys', 'status'], env(keys));
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as {
        currentKeyId: string;
        notCurrent: number;
        unused: string[];
        columns: Array<{ table: string; column: string; byKey: Record<string, number> }>;
      };
    };
    const beforeRotation = await status({});
    // Three columns of each booking, one of each application, the client's JWT secret.
    expect(beforeRotation.notCurrent).toBe(120 * 3 + 120 + 1);
    expect(beforeRotation.columns.find((column) => column.column === 'details_sealed')?.byKey).toEqual({ legacy: 60, secret: 60 });

    // The service, restarted with both keys and k2 current, keeps booking, applying and reading while the rotation runs.
    const rotation = runQuarry(['keys', 'rotate', '--batch-size', '25'], env({}));
    let rotating = true;
    void rotation.finally(() => (rotating = false));
    const made: Array<{ bookingId: string; applicationId: string }> = [];
    let reads = 0;
    while (rotating || made.length < 20) {
      const index = 1_000 + made.length;
      made.push({ bookingId: await book(during, index), applicationId: await apply(during, index) });
      const some = old[made.length % old.length]!;
      await readBack(during, some.bookingId, some.applicationId);
      // A booking change writes its row (waiting for the rotation's lock on it, if held) with the new key.
      await db.query('UPDATE bookings SET details_sealed = $2 WHERE booking_id = $1', [
        some.bookingId,
        during.seal(sealedColumns.bookingDetails, some.bookingId, '{"guest":"changed"}'),
      ]);
      reads += 1;
    }
    const rotated = await rotation;
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stderr).toMatch(/bookings\.details_sealed: \d+ re-sealed/);
    expect(JSON.parse(rotated.stdout)).toMatchObject({ currentKeyId: 'k2', notCurrent: 0, unused: ['secret', 'legacy'] });
    expect(reads).toBeGreaterThan(0);

    // The old key is out of the environment: QUARRY_SECRET_KEY now only keys the lookup hashes.
    const afterRotation = await status({ QUARRY_OPEN_SECRET_KEY_SEALS: 'false' });
    expect(afterRotation).toMatchObject({ currentKeyId: 'k2', notCurrent: 0, unused: [] });
    for (const column of afterRotation.columns)
      for (const keyId of Object.keys(column.byKey))
        expect(`${column.table}.${column.column}:${keyId}`).toBe(`${column.table}.${column.column}:k2`);
    for (const { bookingId, applicationId } of [...old, ...made]) await readBack(after, bookingId, applicationId);
    // Every sealed value of every column opens with the new key alone.
    for (const column of Object.values(sealedColumns)) {
      const rows = await db.query<{ row_key: string; sealed: Buffer }>(
        `SELECT (${column.rowKey})::text AS row_key, ${column.column} AS sealed FROM ${column.table} WHERE ${column.column} IS NOT NULL`,
      );
      for (const row of rows.rows) expect(() => after.open(column, row.row_key, row.sealed)).not.toThrow();
    }
    // A client's JWT secret (sealed before the rotation) still verifies: its row was re-sealed too.
    expect(afterRotation.columns.find((column) => column.table === 'clients')?.byKey).toEqual({ k2: 1 });
  });

  it('does not open a value copied to another row, and leaves it for the operator', async () => {
    const source = await book(during, 5_000);
    const target = await book(during, 5_001);
    await db.query(
      'UPDATE bookings SET pan_token_sealed = (SELECT pan_token_sealed FROM bookings WHERE booking_id = $1) WHERE booking_id = $2',
      [source, target],
    );
    const row = (await db.query<{ pan_token_sealed: Buffer }>('SELECT pan_token_sealed FROM bookings WHERE booking_id = $1', [target]))
      .rows[0]!;
    expect(() => during.open(sealedColumns.bookingPanToken, target, row.pan_token_sealed)).toThrow(/does not open/);
    expect(during.open(sealedColumns.bookingPanToken, source, row.pan_token_sealed)).toBe('v2:token-5000');
  });
});
