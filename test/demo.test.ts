import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import {
  createTestDatabase,
  createTestRedis,
  freePort,
  quarryEnv,
  sendSmtp,
  waitFor,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellEnv, startUntil, type StartedProcess } from './support/npm-scripts.ts';

// `npm run demo` is `quarry start --demo` behind start.sh; this runs the command itself, as a
// newcomer would use it: pull, push, a mined post, an application and a forwarded mail, with nothing outside.
const mainScript = fileURLToPath(new URL('../apps/quarry/src/main.ts', import.meta.url));
let database: TestDatabase;
let redis: TestRedis;
let demo: StartedProcess<Record<string, unknown>>;
let apiBase: string;
let demoOrigin: string;
let secret: string;
let smtpPort: number;

const auth = () => ({ authorization: `Basic ${Buffer.from(`${secret}:`).toString('base64')}` });
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
type PulledHotel = {
  hotelId: string;
  checkIn: string;
  rooms: Array<{ id: string; rates: Array<{ id: string; baseRate: { currencyCode: string; value: number }; taxes: unknown[] }> }>;
};

beforeAll(async () => {
  database = await createTestDatabase('demo');
  redis = createTestRedis('demo');
  smtpPort = await freePort();
  demo = await startUntil(
    process.execPath,
    [mainScript, 'start', '--demo'],
    shellEnv({
      ...quarryEnv({ database, redis, secretKey: Buffer.alloc(32, 31) }),
      PORT: '0',
      HOST: '127.0.0.1',
      SMTP_PORT: String(smtpPort),
      DEMO_PORT: '0',
      DEMO_SMTP_PORT: '0',
      // A short grid: the first pass over the demo hotels is quick and the pushes come early.
      RATES_HORIZON_DAYS: '3',
      // npm run demo makes one in .data/vault-key: the README's booking walkthrough stores a card.
      VAULT_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
    }),
    'demo ready',
  );
  apiBase = String(demo.ready.apiBase);
  demoOrigin = String(demo.ready.demoOrigin);
  secret = /secret +(qs_\S+)/.exec(demo.output())?.[1] ?? '';
  expect(secret).toMatch(/^qs_/);
});

afterAll(async () => {
  await demo?.stop();
  await redis.cleanup();
  await database.drop();
});

describe('npm run demo', () => {
  it('serves rooms of the demo hotels by pull, from its own OpenTravel server', async () => {
    const hotels = (await (await fetch(`${apiBase}/Pull/Hotels`, { headers: auth() })).json()) as Array<{ hotelId: string }>;
    expect(hotels.map((hotel) => hotel.hotelId).sort()).toEqual(['demo-harbour', 'demo-riverside', 'demo-sakura']);
    const response = await fetch(
      `${apiBase}/Pull/RatesFeed?hotelIds=demo-harbour&hotelIds=demo-sakura&checkIn=${tomorrow()}&nights=1&guests=2`,
      { headers: auth() },
    );
    expect(response.status).toBe(200);
    const pulled = (await response.json()) as PulledHotel[];
    expect(pulled.map((hotel) => hotel.hotelId).sort()).toEqual(['demo-harbour', 'demo-sakura']);
    const harbour = pulled.find((hotel) => hotel.hotelId === 'demo-harbour')!;
    expect(harbour.rooms.map((room) => room.id)).toEqual(['DBL', 'STE']);
    expect(harbour.rooms[0]!.rates.map((rate) => rate.id)).toEqual(['DBL:FLEX', 'DBL:BB', 'DBL:SAVER']);
    expect(harbour.rooms[0]!.rates[0]!.baseRate.currencyCode).toBe('eur');
    const sakura = pulled.find((hotel) => hotel.hotelId === 'demo-sakura')!;
    expect(sakura.rooms[0]!.rates[0]!.baseRate).toMatchObject({ currencyCode: 'jpy', value: expect.any(Number) });
    // One guest fits the single room too (demo-harbour also sells searches for 1 guest).
    const single = (await (
      await fetch(`${apiBase}/Pull/RatesFeed?hotelIds=demo-harbour&checkIn=${tomorrow()}&nights=1&guests=1`, { headers: auth() })
    ).json()) as PulledHotel[];
    expect(single[0]!.rooms.map((room) => room.id)).toEqual(['DBL', 'STE', 'SGL']);
  });

  it('pushes the demo hotels to its own push receiver', async () => {
    const pushes = await waitFor(
      'a push with rooms at the demo receiver',
      async () => {
        const received = (await (await fetch(`${demoOrigin}/push`)).json()) as Array<{ hotels: Array<{ hotelId: string; rooms: number }> }>;
        return received.some((push) => push.hotels.some((hotel) => hotel.rooms > 0)) ? received : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(pushes[0]!.hotels.map((hotel) => hotel.hotelId)).toEqual(expect.arrayContaining(['demo-harbour', 'demo-sakura']));
  });

  it('mines the demo careers page and forwards mail to the demo mailbox', async () => {
    const mined = await fetch(`${apiBase}/v1/recruitment/job-posts/mine/`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({
        jobPostId: 'demo-1',
        url: `${demoOrigin}/jobs/backend-engineer`,
        employer: 'Demo Robotics',
        jobTitle: 'Backend Engineer',
      }),
    });
    expect(mined.status).toBe(200);
    const result = await waitFor('the post mined', async () => {
      const body = (await (await fetch(`${apiBase}/v2/recruitment/job-posts/find?jobPostId=demo-1`, { headers: auth() })).json()) as {
        questions?: Array<{ id: string }>;
      };
      return body.questions ? body : undefined;
    });
    expect(result.questions!.map((question) => question.id)).toEqual(
      expect.arrayContaining(['first_name', 'email', 'resume', 'experience', 'work_permit']),
    );

    const bound = await fetch(`${apiBase}/Forwarding/bind`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ recipient: 'shop-42@localhost', forwardsTo: 'me@example.com' }),
    });
    expect(bound.status).toBe(200);
    const sent = await sendSmtp(smtpPort, {
      from: 'alice@example.org',
      to: ['shop-42@localhost'],
      raw: 'From: alice@example.org\r\nTo: shop-42@localhost\r\nSubject: Hello demo\r\n\r\nHi.\r\n',
    });
    expect(sent.data?.code).toBe(250);
    const mails = await waitFor('the forwarded mail in the demo mailbox', async () => {
      const received = (await (await fetch(`${demoOrigin}/mail`)).json()) as Array<{ to: string[]; subject: string }>;
      return received.length > 0 ? received : undefined;
    });
    expect(mails[0]).toMatchObject({ to: ['me@example.com'], subject: 'Hello demo' });
  });

  it('applies to the demo careers page with the CV the demo serves, in Chromium', async () => {
    const applied = await fetch(`${apiBase}/v1/recruitment/job-posts/apply/`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({
        jobPostId: 'demo-apply',
        url: `${demoOrigin}/jobs/backend-engineer`,
        candidate: { email: 'jane@example.com', firstName: 'Jane', lastName: 'Doe' },
        files: { cv: { type: 'File', url: `${demoOrigin}/files/jane-doe-cv.pdf`, filename: 'jane-doe-cv.pdf' } },
        answers: [
          { id: 'experience', value: '3–5' },
          { id: 'work_permit', value: 'No' },
        ],
      }),
    });
    expect(applied.status).toBe(200);
    const { applicationId } = (await applied.json()) as { applicationId: string };
    const found = await waitFor(
      'the application finished',
      async () => {
        const body = (await (
          await fetch(`${apiBase}/v1/recruitment/job-posts/find/application/?applicationId=${applicationId}`, { headers: auth() })
        ).json()) as {
          status: string;
          confirmation?: { reference?: string };
        };
        return body.status === 'processing' ? undefined : body;
      },
      { timeoutMs: 60_000 },
    );
    const received = (await (await fetch(`${demoOrigin}/applications`)).json()) as Array<{
      reference: string;
      fields: Record<string, string[]>;
      files: Array<{ field: string; filename: string }>;
    }>;
    expect(found).toMatchObject({ status: 'success', confirmation: { reference: received[0]!.reference } });
    expect(received[0]!.fields).toMatchObject({
      first_name: ['Jane'],
      email: ['jane@example.com'],
      experience: ['3-5'],
      work_permit: ['no'],
    });
    expect(received[0]!.files).toEqual([expect.objectContaining({ field: 'resume', filename: 'jane-doe-cv.pdf' })]);
  });

  it('lets client URLs reach the demo address only, not the rest of loopback', async () => {
    const response = await fetch(`${apiBase}/v1/hotels/push-subscriptions`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({
        pushUrl: `${apiBase}/push`,
        apiKey: 'k',
        hotelIds: ['demo-harbour'],
        searches: { daysAhead: 1, nights: [1], guests: [2] },
      }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toMatch(/pushUrl/);
  });
  it("lists the demo client's callbacks at its receiver, each signature verified", async () => {
    await fetch(`${apiBase}/v1/recruitment/job-posts/mine/`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({
        jobPostId: 'demo-callbacks',
        url: `${demoOrigin}/jobs/backend-engineer`,
        employer: 'Demo Robotics',
        jobTitle: 'Backend Engineer',
      }),
    });
    const callbacks = await waitFor(
      'the mined post at the demo callback receiver',
      async () => {
        const received = (await (await fetch(`${demoOrigin}/callbacks`)).json()) as Array<{
          type: string;
          verified: boolean;
          data: { jobPostId?: string };
        }>;
        return received.some((callback) => callback.data.jobPostId === 'demo-callbacks') ? received : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(callbacks.find((callback) => callback.data.jobPostId === 'demo-callbacks')).toMatchObject({
      type: 'jobPost.mined',
      verified: true,
    });
    expect(callbacks.every((callback) => callback.verified)).toBe(true);
  });
});

// The README's booking walkthrough, run as written with bash: its shell blocks in order, after the
// line of the rates block that sets CHECKIN; only the demo's address is this run's.
const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
const walkthrough = readme.slice(readme.indexOf('**A booking**'), readme.indexOf('A recipient is bound once'));
const [helpers, booking, challenge] = [...walkthrough.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
const checkInLine = /^CHECKIN=.*$/m.exec(readme)?.[0] ?? '';

function runReadme(steps: string[]): Promise<string> {
  const script = ['set -e', checkInLine, helpers!, ...steps, 'echo "BOOKING=$BOOKING"']
    .join('\n')
    .replaceAll('http://127.0.0.77:8090', demoOrigin);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { env: shellEnv({ QUARRY_SECRET: secret, API: apiBase }), timeout: 150_000 });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`the README's steps exited ${code}:\n${output}`))));
  });
}

const withCard = (hotel: string, pan: string) => booking!.replace(/^HOTEL=\S+ PAN=\S+$/m, `HOTEL=${hotel} PAN=${pan}`);
const bookingOf = async (output: string) => {
  const bookingId = /^BOOKING=(\S+)$/m.exec(output)?.[1] ?? '';
  return (await (await fetch(`${apiBase}/book/${bookingId}`, { headers: auth() })).json()) as {
    stage: string;
    orderReference: string;
    confirmation: { reference: string } | null;
    error: unknown;
  };
};

describe("the README's booking walkthrough, after npm run demo", () => {
  it('books demo-harbour through its OpenTravel server, which lists the reservation at /reservations', async () => {
    expect([helpers, booking, challenge].every(Boolean)).toBe(true);
    const output = await runReadme([withCard('demo-harbour', '4111111111111111')]);
    expect(output.match(/^(priceConfirmed|finalPriceConsent|bookingConfirmed)$/gm)).toEqual([
      'priceConfirmed',
      'finalPriceConsent',
      'bookingConfirmed',
    ]);
    const done = await bookingOf(output);
    expect(done).toMatchObject({ stage: 'bookingConfirmed', error: null, confirmation: { reference: expect.stringMatching(/^HA-/) } });
    const reservations = (await (await fetch(`${demoOrigin}/reservations`)).json()) as Array<{
      reference: string;
      confirmation: string;
      status: string;
      cardLast4: string;
    }>;
    expect(reservations.find((reservation) => reservation.reference === done.orderReference)).toMatchObject({
      status: 'Committed',
      confirmation: done.confirmation!.reference,
      cardLast4: '1111',
    });
  }, 180_000);

  it('books demo-riverside on its booking page, in Chromium', async () => {
    const output = await runReadme([withCard('demo-riverside', '4111111111111111')]);
    expect(await bookingOf(output)).toMatchObject({
      stage: 'bookingConfirmed',
      error: null,
      confirmation: { reference: expect.stringMatching(/^DH-/) },
    });
  }, 180_000);

  it('completes 3-D Secure with the challenged demo card: awaitingTdsChallenge, the issuer page, bookingConfirmed', async () => {
    const output = await runReadme([withCard('demo-harbour', '4000000000003220'), challenge!]);
    expect(output).toMatch(/^awaitingTdsChallenge$/m);
    expect(output).toContain('Payment confirmed');
    expect(await bookingOf(output)).toMatchObject({ stage: 'bookingConfirmed', error: null });
  }, 180_000);

  it('at demo-riverside, the challenged card is completed in a browser at /book/{id}/tds, signed in with the secret, with the demo code', async () => {
    const output = await runReadme([withCard('demo-riverside', '4000000000003220')]);
    expect(output).toMatch(/^awaitingTdsChallenge$/m);
    const bookingId = /^BOOKING=(\S+)$/m.exec(output)?.[1] ?? '';
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
    });
    try {
      // The user name is the secret, the password empty: what the browser's sign-in prompt is given.
      const context = await browser.newContext({ httpCredentials: { username: secret, password: '' } });
      const page = await context.newPage();
      expect((await page.goto(`${apiBase}/book/${bookingId}/tds`))?.status()).toBe(200);
      const challenge = page.frameLocator('#tds-challenge');
      await challenge.locator('#otp').fill('123456');
      await challenge.locator('#otp-submit').click();
      const done = await waitFor(
        'the booking to leave awaitingTdsChallenge',
        async () => {
          const booking = await bookingOf(output);
          return booking.stage === 'awaitingTdsChallenge' ? undefined : booking;
        },
        { timeoutMs: 60_000 },
      );
      expect(done).toMatchObject({ stage: 'bookingConfirmed', error: null, confirmation: { reference: expect.stringMatching(/^DH-/) } });
    } finally {
      await browser.close();
    }
  }, 180_000);
});
