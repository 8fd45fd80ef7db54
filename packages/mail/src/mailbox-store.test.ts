import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMailboxStore, type StoreMailboxBatch } from './mailbox-store.ts';
import { createRecentMessages, type RecentMessages } from './recent-messages.ts';

// The store of messages read from pool mailboxes, against the real schema: what one statement
// stores for the fetches of many accounts, and what it must never store (a lost lease, a key the
// account took before, an unbound alias).

const watcherId = 'watcher-a';
let database: TestDatabase;
let pool: Pool;
let enqueued: string[];
let recent: RecentMessages;
let store: StoreMailboxBatch;

const message = (id: string) =>
  Buffer.from(
    `From: Carol <carol@sender.test>\r\nReturn-Path: <Carol@Sender.test>\r\nSubject: ${id}\r\nMessage-ID: <${id}@sender.test>\r\n\r\nHello from ${id}.\r\n`,
  );

async function addAccount(
  name: string,
  options: { leaseOwner?: string; bound?: boolean } = {},
): Promise<{ email: string; alias: string; imapHost: string }> {
  const email = `${name}@pool.test`;
  const alias = `${name}@fwd.test`;
  await pool.query(
    `INSERT INTO mail_outlook_accounts (email, sealed_secret, client_id, alias, forwards_to, keep_sender, assigned_at, lease_owner, lease_expires_at)
     VALUES ($1, '\\x00', 'cl_store', $2, $3, false, now(), $4, now() + interval '1 minute')`,
    [email, alias, `${name}@dest.test`, options.leaseOwner ?? watcherId],
  );
  if (options.bound !== false) {
    await pool.query(
      `INSERT INTO mail_bindings (recipient, client_id, forwards_to, expires_at) VALUES ($1, 'cl_store', $2, now() + interval '1 day')`,
      [alias, `${name}@dest.test`],
    );
  }
  return { email, alias, imapHost: 'imap.pool.test' };
}

async function checkpoint(email: string, folder = 'INBOX'): Promise<{ uidvalidity: string; last_uid: string } | undefined> {
  return (
    await pool.query<{ uidvalidity: string; last_uid: string }>(
      'SELECT uidvalidity, last_uid FROM mail_mailbox_progress WHERE email = $1 AND folder = $2',
      [email, folder],
    )
  ).rows[0];
}

/** The transactions (xmin) that stored the messages for delivery to `address`. */
async function storingTransactions(address: string): Promise<Set<string>> {
  const result = await pool.query<{ xmin: string }>(
    'SELECT m.xmin FROM mail_deliveries d JOIN mail_messages m USING (message_id) WHERE d.forwards_to = $1',
    [address],
  );
  return new Set(result.rows.map((row) => row.xmin));
}

/** The subjects of the messages stored for delivery to `address`, sorted. */
async function forwardsTo(address: string): Promise<string[]> {
  const result = await pool.query<{ raw: Buffer }>(
    'SELECT m.raw FROM mail_deliveries d JOIN mail_messages m USING (message_id) WHERE d.forwards_to = $1',
    [address],
  );
  return result.rows.map((row) => /^Subject: (.*)$/m.exec(row.raw.toString())?.[1] ?? '').sort();
}

async function account(email: string): Promise<{ forwarded: number; received: number }> {
  const result = await pool.query<{ forwarded: number; received: string }>(
    `SELECT a.forwarded, COALESCE((SELECT sum(received) FROM mail_binding_counters WHERE recipient = a.alias), 0) AS received FROM mail_outlook_accounts a WHERE email = $1`,
    [email],
  );
  return { forwarded: result.rows[0]?.forwarded ?? -1, received: Number(result.rows[0]?.received ?? -1) };
}

beforeAll(async () => {
  database = await createTestDatabase('mailbox_store');
  pool = createPool(database.url, 4);
  await pool.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('cl_store', 'store', '{forwarding}', '\\x03', '\\x03')`,
  );
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

beforeEach(() => {
  enqueued = [];
  recent = createRecentMessages({ maxBytes: 1024 * 1024, maxAgeMs: 60_000 });
  store = createMailboxStore({
    pool,
    enqueueMany: async (jobs) => void enqueued.push(...jobs.map((job) => job.options.jobId)),
    hostname: 'mx.quarry.test',
    watcherId,
    recent,
  });
});

describe('storing what sessions read from pool mailboxes', () => {
  it('stores the fetches of many accounts that arrive together in one transaction, each message once with its checkpoint', async () => {
    const accounts = await Promise.all(['group-1', 'group-2', 'group-3'].map((name) => addAccount(name)));
    const [first, second, third] = await Promise.all(
      accounts.map((mailbox, index) =>
        store({
          account: mailbox,
          folder: 'INBOX',
          uidValidity: 7n,
          messages: [
            { uid: 3, raw: message(`m-${index}-a`) },
            { uid: 5, raw: message(`m-${index}-b`) },
          ],
        }),
      ),
    );

    expect([first, second, third]).toEqual([0, 1, 2].map(() => ({ leaseLost: false, forwarded: [3, 5] })));
    // The first fetch went alone (nothing was waiting), the two that came meanwhile together.
    const transactions = await Promise.all(
      ['group-1', 'group-2', 'group-3'].map(async (name) => [...(await storingTransactions(`${name}@dest.test`))]),
    );
    expect(transactions.map((xmins) => xmins.length)).toEqual([1, 1, 1]);
    expect(transactions[1]).toEqual(transactions[2]);
    expect(transactions[0]).not.toEqual(transactions[1]);
    for (const [index, mailbox] of accounts.entries()) {
      expect(await forwardsTo(mailbox.email.replace('pool.test', 'dest.test'))).toEqual([`m-${index}-a`, `m-${index}-b`]);
      expect(await checkpoint(mailbox.email)).toEqual({ uidvalidity: '7', last_uid: '5' });
      expect(await account(mailbox.email)).toEqual({ forwarded: 2, received: 2 });
    }
    const deliveries = await pool.query<{ delivery_id: string; envelope_from: string; raw: Buffer }>(
      "SELECT d.delivery_id, m.envelope_from, m.raw FROM mail_deliveries d JOIN mail_messages m USING (message_id) WHERE d.recipient = 'group-1@fwd.test'",
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(enqueued.sort()).toEqual(expect.arrayContaining(deliveries.rows.map((row) => row.delivery_id)));
    expect(enqueued).toHaveLength(6);
    for (const row of deliveries.rows) {
      // Our trace line on top, the envelope sender from Return-Path, and the bytes at hand for this process's delivery.
      expect(row.raw.toString()).toMatch(
        /^Received: from imap\.pool\.test by mx\.quarry\.test with IMAP id 7\.[35]\r\n\tfor <group-1@pool\.test>; /,
      );
      expect(row.envelope_from).toBe('carol@sender.test');
      expect(recent.get(row.delivery_id)?.equals(row.raw)).toBe(true);
    }
  });

  it('takes a Message-ID once per account: a copy in the same fetch or a later one only moves the checkpoint', async () => {
    const mailbox = await addAccount('seen');
    const copy = message('copied');
    expect(
      await store({
        account: mailbox,
        folder: 'INBOX',
        uidValidity: 1n,
        messages: [
          { uid: 1, raw: copy },
          { uid: 2, raw: copy },
        ],
      }),
    ).toEqual({ leaseLost: false, forwarded: [1] });
    // The folder read again under a new UIDVALIDITY, and the copy that sits in Junk.
    expect(
      await store({
        account: mailbox,
        folder: 'INBOX',
        uidValidity: 2n,
        messages: [
          { uid: 1, raw: copy },
          { uid: 2, raw: message('new') },
        ],
      }),
    ).toEqual({ leaseLost: false, forwarded: [2] });
    expect(await store({ account: mailbox, folder: 'Junk', uidValidity: 9n, messages: [{ uid: 4, raw: copy }] })).toEqual({
      leaseLost: false,
      forwarded: [],
    });

    expect(await forwardsTo('seen@dest.test')).toEqual(['copied', 'new']);
    expect(await checkpoint(mailbox.email)).toEqual({ uidvalidity: '2', last_uid: '2' });
    expect(await checkpoint(mailbox.email, 'Junk')).toEqual({ uidvalidity: '9', last_uid: '4' });
    expect(await account(mailbox.email)).toEqual({ forwarded: 2, received: 2 });
  });

  it('never moves a checkpoint back, and passes over messages without bytes (mail from before the hand-out)', async () => {
    const mailbox = await addAccount('forward-only');
    expect(
      await store({
        account: mailbox,
        folder: 'INBOX',
        uidValidity: 3n,
        messages: [
          { uid: 8, raw: null },
          { uid: 9, raw: message('kept') },
        ],
      }),
    ).toEqual({ leaseLost: false, forwarded: [9] });
    // A session with a stale checkpoint lists messages again: found by key, and the checkpoint stays.
    expect(await store({ account: mailbox, folder: 'INBOX', uidValidity: 3n, messages: [{ uid: 6, raw: message('kept') }] })).toEqual({
      leaseLost: false,
      forwarded: [],
    });
    expect(await checkpoint(mailbox.email)).toEqual({ uidvalidity: '3', last_uid: '9' });
    // A fetch of nothing but old mail only moves the checkpoint.
    expect(
      await store({
        account: mailbox,
        folder: 'INBOX',
        uidValidity: 3n,
        messages: [
          { uid: 10, raw: null },
          { uid: 12, raw: null },
        ],
      }),
    ).toEqual({ leaseLost: false, forwarded: [] });
    expect(await checkpoint(mailbox.email)).toEqual({ uidvalidity: '3', last_uid: '12' });
    expect(await forwardsTo('forward-only@dest.test')).toEqual(['kept']);
  });

  it('stores nothing for an account whose lease another watcher holds now, and the others of its group as usual', async () => {
    const lost = await addAccount('lost', { leaseOwner: 'watcher-b' });
    const held = await addAccount('held');
    const [lostOutcome, heldOutcome] = await Promise.all([
      store({ account: lost, folder: 'INBOX', uidValidity: 1n, messages: [{ uid: 1, raw: message('lost-1') }] }),
      store({ account: held, folder: 'INBOX', uidValidity: 1n, messages: [{ uid: 1, raw: message('held-1') }] }),
    ]);
    expect(lostOutcome).toEqual({ leaseLost: true });
    expect(heldOutcome).toEqual({ leaseLost: false, forwarded: [1] });
    expect(await forwardsTo('lost@dest.test')).toEqual([]);
    expect(await checkpoint(lost.email)).toBeUndefined();
    expect((await pool.query("SELECT 1 FROM mail_mailbox_seen WHERE email = 'lost@pool.test'")).rowCount).toBe(0);
    expect(await forwardsTo('held@dest.test')).toEqual(['held-1']);
  });

  it('records what an account without an active binding took, forwarding nothing', async () => {
    const mailbox = await addAccount('unbound', { bound: false });
    expect(await store({ account: mailbox, folder: 'INBOX', uidValidity: 1n, messages: [{ uid: 1, raw: message('unbound-1') }] })).toEqual({
      leaseLost: false,
      forwarded: [],
    });
    expect(await checkpoint(mailbox.email)).toEqual({ uidvalidity: '1', last_uid: '1' });
    expect((await pool.query("SELECT message_key FROM mail_mailbox_seen WHERE email = 'unbound@pool.test'")).rows).toEqual([
      { message_key: 'mid:<unbound-1@sender.test>' },
    ]);
    expect(await forwardsTo('unbound@dest.test')).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it('stores two fetches of one account that wait together one after the other', async () => {
    const mailbox = await addAccount('twice');
    const blocker = await addAccount('blocker');
    const [, earlier, later] = await Promise.all([
      store({ account: blocker, folder: 'INBOX', uidValidity: 1n, messages: [{ uid: 1, raw: message('blocker-1') }] }),
      store({ account: mailbox, folder: 'INBOX', uidValidity: 1n, messages: [{ uid: 1, raw: message('twice-1') }] }),
      store({ account: mailbox, folder: 'INBOX', uidValidity: 1n, messages: [{ uid: 2, raw: message('twice-2') }] }),
    ]);
    expect([earlier, later]).toEqual([
      { leaseLost: false, forwarded: [1] },
      { leaseLost: false, forwarded: [2] },
    ]);
    expect(await checkpoint(mailbox.email)).toEqual({ uidvalidity: '1', last_uid: '2' });
    expect(await forwardsTo('twice@dest.test')).toEqual(['twice-1', 'twice-2']);
  });
});
