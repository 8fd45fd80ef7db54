import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuarry, startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/**
 * The 3-D Secure page `GET /book/{id}/tds` in a real `quarry` API process and a real Chromium: who
 * may frame it (the client's own origins, set by an operator), to whom it tells the outcome, and
 * which ACS URLs it shows. Bookings are written in their challenge stage directly; the worker's
 * side of 3-D Secure is `bookings.test.ts` and `bookings-browser.test.ts`.
 */
const secretKey = Buffer.alloc(32, 36);
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let api: QuarryProcess;
let env: Record<string, string>;
let base: string;
let browser: Browser;
let booker: { clientId: string; secret: string };
let admin: { clientId: string; secret: string };
const servers: Server[] = [];
/** The client's own page, a stranger's page (two origins of this machine) and the issuer's ACS. */
let clientOrigin: string;
let strangerOrigin: string;
let acsOrigin: string;

const basic = (client: { secret: string }) => `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}`;

async function call(method: string, path: string, client: { secret: string }, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: basic(client), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

/** A page on its own origin that frames `src`, and records every message its window receives. */
async function startParentSite(): Promise<string> {
  const server = createServer((request, response) => {
    const src = new URL(request.url ?? '/', 'http://parent.invalid').searchParams.get('frame') ?? '';
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(`<!doctype html><title>client page</title><script>window.received = []; addEventListener('message', (event) => window.received.push({ origin: event.origin, data: event.data }));</script>
<iframe id="tds" src="${src.replace(/"/g, '&quot;')}" width="600" height="500"></iframe>`);
  });
  return listen(server);
}

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A booking of `booker` waiting for its card holder at `acsUrl`. */
async function challengedBooking(acsUrl: string): Promise<string> {
  const bookingId = randomUUID();
  await db.query(
    `INSERT INTO bookings (booking_id, client_id, hotel_id, check_in, nights, guests, room_id, rate_id, state, stage, reference, tds_challenge, tds_expires_at)
     VALUES ($1, $2, 'H-TDS', '2027-01-10', 1, 2, 'STD', 'STD:FLEX', 'pending', 'awaitingTdsChallenge', $3, $4, now() + interval '10 minutes')`,
    [
      bookingId,
      booker.clientId,
      `QR-${bookingId.slice(0, 8)}`,
      JSON.stringify({ acsUrl, creq: 'Y3JlcQ', windowSize: '02', expiresAt: new Date(Date.now() + 600_000).toISOString() }),
    ],
  );
  return bookingId;
}

const finish = (bookingId: string) =>
  db.query(
    `UPDATE bookings SET stage = 'bookingConfirmed', state = 'finished', tds_challenge = NULL, seq = seq + 1 WHERE booking_id = $1`,
    [bookingId],
  );

/** The card holder's browser on `parentOrigin`'s page framing the booking's challenge; the client's server adds the credential. */
async function frameChallenge(parentOrigin: string, bookingId: string) {
  const context = await browser.newContext();
  await context.route(`${base}/**`, (route) => route.continue({ headers: { ...route.request().headers(), authorization: basic(booker) } }));
  const page = await context.newPage();
  await page.goto(`${parentOrigin}/?frame=${encodeURIComponent(`${base}/book/${bookingId}/tds`)}`);
  return { context, page };
}

beforeAll(async () => {
  database = await createTestDatabase('bookings_tds_page');
  redis = createTestRedis('bookings-tds-page');
  db = createPool(database.url, 2);
  clientOrigin = await startParentSite();
  strangerOrigin = await startParentSite();
  acsOrigin = await listen(
    createServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end('<!doctype html><title>issuer</title><p id="otp-prompt">Enter the code we sent you</p>');
    }),
  );
  env = {
    ...quarryEnv({ database, redis, secretKey }),
    AUTH_CACHE_MS: '0',
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    ALLOW_LOOPBACK_HTTP_HOTELS: 'true',
  };
  api = await startQuarry('api', env);
  base = `http://127.0.0.1:${api.port}`;
  booker = await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking'] });
  admin = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin'] });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  api?.child.kill('SIGKILL');
  for (const server of servers) server.close();
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

describe('the 3-D Secure page', () => {
  it('may be framed by no page while the client has no frame origins', async () => {
    const bookingId = await challengedBooking(`${acsOrigin}/acs`);
    const page = await call('GET', `/book/${bookingId}/tds`, booker);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it("operators set a client's frame origins (API and CLI); a bad origin is a 400 naming it", async () => {
    const bad = await call('PUT', `/v1/admin/clients/${booker.clientId}/frame-origins`, admin, {
      origins: ['https://shop.example.com/checkout', 'http://shop.example.com'],
    });
    expect(bad.status).toBe(400);
    expect((JSON.parse(bad.text) as { details: { messages: string[] } }).details.messages.map((message) => message.split(':')[0])).toEqual([
      'origins.0',
      'origins.1',
    ]);
    expect((await call('PUT', `/v1/admin/clients/${booker.clientId}/frame-origins`, booker, { origins: [] })).status).toBe(403);
    expect((await call('PUT', '/v1/admin/clients/cl_aaaaaaaaaaaaaaaaaaaa/frame-origins', admin, { origins: [] })).status).toBe(404);

    const set = await runQuarry(['clients', 'frame-origins', booker.clientId, 'https://shop.example.com', 'https://shop.example.com'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ clientId: booker.clientId, origins: ['https://shop.example.com'] });
    const refused = await runQuarry(['clients', 'frame-origins', booker.clientId, 'shop.example.com'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('clients frame-origins: origins.0: must be an origin');

    const put = await call('PUT', `/v1/admin/clients/${booker.clientId}/frame-origins`, admin, {
      origins: [clientOrigin, 'https://shop.example.com'],
    });
    expect(put.status, put.text).toBe(200);
    expect(JSON.parse((await call('GET', `/v1/admin/clients/${booker.clientId}/frame-origins`, admin)).text)).toEqual({
      clientId: booker.clientId,
      origins: [clientOrigin, 'https://shop.example.com'],
    });
    const bookingId = await challengedBooking(`${acsOrigin}/acs`);
    const policy = (await call('GET', `/book/${bookingId}/tds`, booker)).headers.get('content-security-policy') ?? '';
    expect(policy.split('; ').filter((directive) => directive.startsWith('frame-ancestors'))).toEqual([
      `frame-ancestors ${clientOrigin} https://shop.example.com`,
    ]);
  });

  it("shows the challenge in a frame of the client's page, and tells that page alone how it ended", async () => {
    const bookingId = await challengedBooking(`${acsOrigin}/acs`);
    const { context, page } = await frameChallenge(clientOrigin, bookingId);
    const challenge = page.frameLocator('#tds').frameLocator('#tds-challenge');
    await challenge.locator('#otp-prompt').waitFor();
    await finish(bookingId);
    const received = await waitFor(
      'the client page to hear the outcome',
      async () => {
        const messages = await page.evaluate(() => (globalThis as unknown as { received: unknown[] }).received);
        return messages.length > 0 ? messages : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(received).toEqual([{ origin: new URL(base).origin, data: { type: '3dsecure-finished', bookingId, stage: 'bookingConfirmed' } }]);
    await context.close();
  });

  it('cannot be framed by another site, which never hears the outcome', async () => {
    const bookingId = await challengedBooking(`${acsOrigin}/acs`);
    const { context, page } = await frameChallenge(strangerOrigin, bookingId);
    // Chromium refuses the frame: the challenge never loads in it.
    await page.waitForTimeout(1_500);
    expect(await page.frameLocator('#tds').locator('#tds-challenge').count()).toBe(0);
    await finish(bookingId);
    await page.waitForTimeout(2_500);
    expect(await page.evaluate(() => (globalThis as unknown as { received: unknown[] }).received)).toEqual([]);
    await context.close();
  });

  it('shows only an https: ACS on a public address; any other acsUrl is a 409 naming it, never a 500', async () => {
    for (const acsUrl of [
      'not a url',
      'http://acs.example.com/challenge',
      'https://10.1.2.3/acs',
      'https://169.254.169.254/latest',
      'javascript:alert(1)',
      'https://user:pass@acs.example.com/',
    ]) {
      const bookingId = await challengedBooking(acsUrl);
      const answer = await call('GET', `/book/${bookingId}/tds`, booker);
      expect(answer.status, `${acsUrl}: ${answer.text}`).toBe(409);
      expect(answer.text).toContain('tdsChallenge.acsUrl');
      expect(answer.text).not.toContain('<form');
    }
  });
});

describe('GET /book/{id}', () => {
  it('gives the ACS URL only when the 3-D Secure page would post there; otherwise leaves it out and names the problem', async () => {
    const shown = await challengedBooking(`${acsOrigin}/acs`);
    const good = await call('GET', `/book/${shown}`, booker);
    expect(good.status).toBe(200);
    expect((JSON.parse(good.text) as { tdsChallenge: Record<string, unknown> }).tdsChallenge).toMatchObject({
      acsUrl: `${acsOrigin}/acs`,
      creq: 'Y3JlcQ',
      windowSize: '02',
    });
    expect(good.text).not.toContain('acsUrlRefused');
    const refusals: Record<string, string> = {
      'http://acs.example.com/challenge': 'is not an https: URL',
      'https://10.1.2.3/acs': 'is not on a public address',
      'https://169.254.169.254/latest': 'is not on a public address',
      'https://user:pass@acs.example.com/': 'carries credentials',
      'javascript:alert(1)': 'is not an https: URL',
      'not a url': 'is not a URL',
    };
    for (const [acsUrl, why] of Object.entries(refusals)) {
      const bookingId = await challengedBooking(acsUrl);
      const answer = await call('GET', `/book/${bookingId}`, booker);
      expect(answer.status, `${acsUrl}: ${answer.text}`).toBe(200);
      const challenge = (JSON.parse(answer.text) as { stage: string; tdsChallenge: Record<string, unknown> }).tdsChallenge;
      expect(challenge).not.toHaveProperty('acsUrl');
      expect(challenge).toMatchObject({ creq: 'Y3JlcQ', acsUrlRefused: expect.stringContaining(`tdsChallenge.acsUrl ${why}`) });
      expect(answer.text).not.toContain(acsUrl.replace(/^[a-z]+:\/\//, ''));
    }
  });
});
