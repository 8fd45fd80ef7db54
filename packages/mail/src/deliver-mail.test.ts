import { isAscii } from 'node:buffer';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createPool, type Pool } from '@quarry/db';
import { insertAcceptedMessages } from './mail.queries.ts';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { authenticate } from 'mailauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverMail, deliveryJobId, retryDelayMs } from './deliver-mail.ts';
import { createDeliveryStore } from './delivery-store.ts';
import type { MailSender } from './mail-sender.ts';
import { createSrs } from './srs.ts';

describe('retry schedule', () => {
  it('doubles from the base up to the cap, like Postfix (300 s … 4000 s)', () => {
    const settings = { retryBaseMs: 300_000, retryMaxMs: 4_000_000 };
    expect([1, 2, 3, 4, 5, 6, 10].map((attempts) => retryDelayMs(settings, attempts))).toEqual([
      300_000, 600_000, 1_200_000, 2_400_000, 4_000_000, 4_000_000, 4_000_000,
    ]);
  });

  it('gives every attempt its own deterministic job id, so a re-enqueue of the same attempt is a no-op', () => {
    expect(deliveryJobId('d', 0)).toBe('d');
    expect(deliveryJobId('d', 3)).toBe('d-r3');
  });
});

describe('delivery to a hop without 8BITMIME', () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase('mail_deliver');
    pool = createPool(database.url, 4);
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('sends the converted original with our DKIM signature made over it', async () => {
    const original = Buffer.from(
      'From: =?UTF-8?Q?Zo=C3=AB?= <zoe@sender.test>\r\nSubject: hi\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nGrüße aus Köln.\r\n',
    );
    const deliveryId = randomUUID();
    await insertAcceptedMessages(pool, [
      {
        messageId: randomUUID(),
        envelopeFrom: 'zoe@sender.test',
        smtpUtf8: false,
        raw: original,
        deliveries: [{ deliveryId, recipient: null, forwardsTo: 'dest@dest.test', kind: 'forward', keepSender: false }],
        countRecipients: [],
      },
    ]);
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    // A hop that has no 8BITMIME: it takes only what the 7-bit form is (our own port, played here).
    const sent: Buffer[] = [];
    const sevenBitHop: MailSender = {
      async send(_envelope, message) {
        const composed = await message('as-composed');
        sent.push(isAscii(composed) ? composed : await message('seven-bit'));
        return { outcome: 'delivered', response: '250 ok' };
      },
      close() {},
    };
    const store = createDeliveryStore(pool);
    try {
      const result = await deliverMail(
        {
          pool,
          store,
          sender: sevenBitHop,
          srs: createSrs({ secret: Buffer.alloc(32, 1), domain: 'relay.test' }),
          dns: () => Promise.reject(new Error('no DNS for a keepSender:false copy')),
          enqueue: () => Promise.resolve(),
          now: () => new Date(),
          settings: {
            relaySender: 'f@relay.test',
            hostname: 'mx.relay.test',
            dkim: { domain: 'relay.test', selector: 'quarry', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
            retryBaseMs: 300_000,
            retryMaxMs: 4_000_000,
            maxQueueLifetimeMs: 5 * 86_400_000,
          },
        },
        { deliveryId },
      );
      expect(result).toBe('delivered');
    } finally {
      store.close();
    }

    const [bytes] = sent;
    expect(bytes && isAscii(bytes)).toBe(true);
    expect(bytes?.toString()).toMatch(/^Content-Transfer-Encoding: quoted-printable\r$/m);
    expect(bytes?.toString()).toContain('Gr=C3=BC=C3=9Fe aus K=C3=B6ln.');
    const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
    const resolver = async (name: string, type: string) => {
      if (type === 'TXT' && name === 'quarry._domainkey.relay.test') return [[record]];
      throw Object.assign(new Error(`no ${type} ${name}`), { code: 'ENOTFOUND' });
    };
    const verdict = await authenticate(bytes ?? Buffer.alloc(0), {
      ip: '127.0.0.1',
      helo: 'mx.relay.test',
      sender: 'f@relay.test',
      mta: 'dest.test',
      resolver,
      disableArc: true,
      disableBimi: true,
    });
    expect(verdict.dkim.results.find((entry) => entry.signingDomain === 'relay.test')?.status.result).toBe('pass');
  });
});
