import { fileURLToPath } from 'node:url';
import { createClient } from '@quarry/auth';
import { createPool, migrateToLatest } from '@quarry/db';
import { startDemoCheckoutSites } from '@quarry/demo';
import { createTestDatabase, createTestRedis, quarryEnv, startOpenTravelHotel } from '@quarry/testing';
import { createBookingDriver } from './booking-driver.ts';
import { load, printTable, repoRoot, runFor, spawnServer } from './harness.ts';
import { databaseCpuSeconds, measureMachineCpu, processCpuSeconds, sampleTreeCpu } from './machine-cpu.ts';
import { sampleTreeRss } from './process-tree-rss.ts';

const mainScript = fileURLToPath(new URL('../../apps/quarry/src/main.ts', import.meta.url));
const workerScript = fileURLToPath(new URL('./bookings-worker.server.ts', import.meta.url));
const floorScript = fileURLToPath(new URL('./bookings-floor.server.ts', import.meta.url));
/** How often a client waiting for a stage reads its booking's status. */
const statusPollMs = 25;

/**
 * `npm run bench -- bookings`: whole bookings through one `quarry` API process and one
 * bookings-worker process against a hotel's OpenTravel endpoint on loopback (real HTTP and XML):
 * create → price check → book → final price → consent → OTA_HotelResRQ → confirmed, `concurrency`
 * bookings in flight, each client polling its booking's status. Then `GET /book/{id}` under load.
 * Targets: ≥ 50 bookings/s per worker process; status reads ≥ 5,000 req/s with p99 < 20 ms. The
 * floor, in the same run: express + pg reading the same row by prepared statement, unauthenticated.
 * The `browser` row books the demo engine's own booking page in the worker's Chromium (the price
 * check's search, then the checkout: guest page, card in a cross-origin iframe, final-price page,
 * order), 5 checkouts in flight, with
 * the peak PSS of the worker's process tree (Chromium included). Targets: ≥ 1 booking/s, < 1.5 GB.
 */
export async function benchBookings(options: { seconds: number; connections: number; concurrency: number }): Promise<void> {
  const secretKey = Buffer.alloc(32, 3);
  const database = await createTestDatabase('bench-bookings');
  const redis = createTestRedis('bench-bookings');
  await migrateToLatest(database.url);
  const db = createPool(database.url, 2);
  const hotel = await startOpenTravelHotel();
  hotel.hotels.set('BENCH', { price: '120.00' });
  const client = await createClient({ db, secretKey }, { name: 'bench agency', scopes: ['booking'] });
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ('BENCH', 'Bench', 'opentravel', '', 'us', NULL, '{2}', 'https://book.example.com', $1)`,
    [JSON.stringify({ kind: 'opentravel', endpointUrl: hotel.url, hotelCode: 'BENCH' })],
  );
  await db.query(`INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, 'BENCH')`, [client.clientId]);
  const euros = (cents: number) => `EUR ${(cents / 100).toFixed(2)}`;
  const pages = await startDemoCheckoutSites(() => ({
    state: 'rooms',
    currency: 'EUR',
    rooms: [
      {
        code: 'DBL',
        name: 'Double room',
        description: '',
        maxGuests: 2,
        rates: [
          {
            code: 'FLEX',
            name: 'Flexible',
            total: euros(12_000),
            cancellation: 'Non-refundable',
            charges: [{ kind: 'tax', code: 'vat', name: 'VAT', amount: euros(1_200) }],
          },
        ],
      },
    ],
  }));
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ('BENCH-PAGE', 'Bench page', 'demo-ibe', '', 'pt', NULL, '{2}', $1, $2)`,
    [pages.engineUrl('/engine/search.html?hotel=BENCH-PAGE'), JSON.stringify({ kind: 'booking-page', engine: 'demo-ibe' })],
  );
  await db.query(`INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, 'BENCH-PAGE')`, [client.clientId]);
  const env = {
    ...quarryEnv({ database, redis, secretKey }),
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    LOG_LEVEL: 'info',
    AUTH_CACHE_MS: '60000',
    PORT: '0',
    HOST: '127.0.0.1',
    BOOKING_CONCURRENCY: '64',
    DATABASE_POOL_SIZE: '20',
  };
  const api = await spawnServer(mainScript, ['start', '--role', 'api'], env);
  const worker = await spawnServer(workerScript, [], env);
  const base = `http://127.0.0.1:${api.port}`;
  const authorization = `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}`;
  const checkIn = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
  const driver = createBookingDriver({ base, authorization, connections: options.concurrency, statusPollMs, checkIn });
  const { book, failureCodes, codes } = driver;
  const bookOpenTravel = book('BENCH', 'STD', 'STD:FLEX');
  const bookPage = book('BENCH-PAGE', 'DBL', 'DBL:FLEX');
  const inFlight = 5;
  try {
    await runFor(3, options.concurrency, bookOpenTravel);
    const ordersBefore = hotel.orders.length;
    // CPU per booking of each process says what the rate would be where the worker has a core of its
    // own: on this 2-core machine it shares them with the API, the clients, the hotel and Postgres.
    const cpuBefore = {
      worker: processCpuSeconds(worker.child.pid ?? 0),
      api: processCpuSeconds(api.child.pid ?? 0),
      bench: processCpuSeconds(process.pid),
      postgres: databaseCpuSeconds(database.name),
    };
    const readsBefore = driver.statusReads();
    const machine = measureMachineCpu();
    const result = await runFor(options.seconds, options.concurrency, bookOpenTravel);
    const machineBusy = machine.stop();
    const perSecond = (result.runs - result.failures) / result.seconds;
    const confirmed = Math.max(1, result.runs - result.failures);
    const workerMs = (1000 * (processCpuSeconds(worker.child.pid ?? 0) - cpuBefore.worker)) / confirmed;
    const apiMs = (1000 * (processCpuSeconds(api.child.pid ?? 0) - cpuBefore.api)) / confirmed;
    const benchMs = (1000 * (processCpuSeconds(process.pid) - cpuBefore.bench)) / confirmed;
    const postgresMs = (1000 * (databaseCpuSeconds(database.name) - cpuBefore.postgres)) / confirmed;
    const readsPerBooking = (driver.statusReads() - readsBefore) / confirmed;
    // The browser engine: a warm-up (Chromium starts on the first booking), then the measured run.
    await runFor(5, inFlight, bookPage);
    failureCodes.clear();
    const pageOrdersBefore = pages.orders.length;
    // Once a second: a read of every Chromium process's smaps_rollup takes the kernel tens of
    // milliseconds, and sampled every 250 ms the bench itself kept a quarter of a core busy (of two).
    const memory = sampleTreeRss(worker.child.pid ?? 0, 1_000);
    // Chromium is the worker's descendants: its CPU per booking says what the rate would be on idle cores.
    const pageCpuBefore = { worker: processCpuSeconds(worker.child.pid ?? 0), api: processCpuSeconds(api.child.pid ?? 0) };
    const treeCpu = sampleTreeCpu(worker.child.pid ?? 0);
    const pageMachine = measureMachineCpu();
    const browser = await runFor(options.seconds, inFlight, bookPage);
    const pageMachineBusy = pageMachine.stop();
    const pageBooked = Math.max(1, browser.runs - browser.failures);
    const pageWorkerSeconds = (processCpuSeconds(worker.child.pid ?? 0) - pageCpuBefore.worker) / pageBooked;
    const chromiumSeconds = (await treeCpu.stop()) - pageWorkerSeconds * pageBooked;
    const pageApiSeconds = (processCpuSeconds(api.child.pid ?? 0) - pageCpuBefore.api) / pageBooked;
    const { peakPssMb } = memory.stop();
    const pagePerSecond = (browser.runs - browser.failures) / browser.seconds;
    const reads = await load(`${base}/book/${driver.lastBookingId()}`, {
      headers: { authorization },
      connections: options.connections,
      seconds: options.seconds,
    });
    const floor = await spawnServer(floorScript, [], { DATABASE_URL: database.url, CLIENT_ID: client.clientId });
    const floorReads = await load(`http://127.0.0.1:${floor.port}/book/${driver.lastBookingId()}`, {
      connections: options.connections,
      seconds: options.seconds,
    }).finally(() => floor.stop());
    printTable(
      `bookings: one API process, one bookings-worker process, ${options.concurrency} bookings in flight, each client reading its status every ${statusPollMs} ms while it waits (${repoRoot})`,
      ['what', 'throughput', 'p50 ms', 'p99 ms', 'failures'],
      [
        [
          `opentravel (create → consent → OTA_HotelResRQ → confirmed), ${readsPerBooking.toFixed(1)} status reads per booking; CPU per booking: worker ${workerMs.toFixed(1)} ms (${Math.round(1000 / workerMs)} bookings/s per core), API ${apiMs.toFixed(1)} ms, Postgres ${postgresMs.toFixed(1)} ms, clients + hotel ${benchMs.toFixed(1)} ms; machine ${Math.round(machineBusy)}% busy`,
          `${perSecond.toFixed(1)} bookings/s`,
          '',
          '',
          `${result.failures} of ${result.runs}; ${hotel.orders.length - ordersBefore} orders at the hotel`,
        ],
        [
          `browser (demo booking page: price check (a search) → guest page → card iframe → final price → order), ${inFlight} in flight, peak PSS ${Math.round(peakPssMb)} MB; CPU per booking: Chromium ${(chromiumSeconds / pageBooked).toFixed(2)} s, worker ${pageWorkerSeconds.toFixed(2)} s, API ${pageApiSeconds.toFixed(2)} s; machine ${Math.round(pageMachineBusy)}% busy`,
          `${pagePerSecond.toFixed(2)} bookings/s`,
          '',
          '',
          `${browser.failures} of ${browser.runs}${browser.failures ? ` (${codes()})` : ''}; ${pages.orders.length - pageOrdersBefore} orders at the hotel`,
        ],
        [
          `GET /book/{id} (${options.connections} connections)`,
          `${Math.round(reads.requestsPerSecond)} req/s`,
          reads.p50Ms,
          reads.p99Ms,
          reads.errors + reads.non2xx,
        ],
        [
          `floor: express + pg, the same row by prepared statement (${options.connections} connections)`,
          `${Math.round(floorReads.requestsPerSecond)} req/s`,
          floorReads.p50Ms,
          floorReads.p99Ms,
          floorReads.errors + floorReads.non2xx,
        ],
      ],
    );
  } finally {
    await driver.close();
    await worker.stop();
    await api.stop();
    await hotel.close();
    await pages.close();
    await db.end();
    await redis.cleanup();
    await database.drop();
  }
}
