import { createClient } from '@quarry/auth';
import { lockWaiters, startPrivateDovecot, waitFor, type PrivateDovecot } from '@quarry/testing';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receivingDomain, relaySender, startMailStack, type MailStack } from './support/smtp-stack.ts';
import type { QuarryProcess } from './support/quarry-process.ts';

// Pool accounts that really forward: a private Dovecot holds the accounts' mailboxes, real `mail`
// processes watch them over IMAP, and what they forward reaches the SMTP sink standing in for the
// destinations' MX.

const password = 'right-password';
const users = ['idle-1', 'idle-2', 'idle-3', 'restart', 'broken', 'junk', 'idle-timing'].map((name) => ({
  user: `${name}@pool.test`,
  password,
}));
let stack: MailStack;
let idleServer: PrivateDovecot;
let pollServer: PrivateDovecot;
let resetServer: PrivateDovecot;
let operator: string;
const pollMs = 5_000;
const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;

function message(id: string, extra = ''): string {
  return `From: Carol <carol@sender.test>\r\nTo: someone@pool.test\r\nSubject: ${id}\r\nMessage-ID: <${id}@sender.test>\r\n${extra}\r\nHello from ${id}.\r\n`;
}

async function append(server: PrivateDovecot, user: string, raw: string, options: { folder?: string; date?: Date } = {}): Promise<void> {
  const client = new ImapFlow({ host: server.host, port: server.port, secure: false, auth: { user, pass: password }, logger: false });
  await client.connect();
  try {
    await client.append(options.folder ?? 'INBOX', raw, [], options.date);
  } finally {
    await client.logout();
  }
}

async function load(server: PrivateDovecot, accounts: Array<{ email: string; password: string }>) {
  const response = await fetch(`http://127.0.0.1:${stack.api.port}/v1/admin/mail/outlook-accounts`, {
    method: 'POST',
    headers: { authorization: basic(operator), 'content-type': 'application/json' },
    body: JSON.stringify({
      accounts: accounts.map((account) => ({ ...account, imap: { host: server.host, port: server.port, secure: false } })),
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { loaded: number; available: number; refused: Array<{ email: string; error: string }> };
}

/** Loads one account and hands it out at once (the pool hands out the oldest first). */
async function handOut(server: PrivateDovecot, email: string, forwardsTo: string, keepSender = false): Promise<string> {
  expect((await load(server, [{ email, password }])).refused).toEqual([]);
  const alias = `alias-${email.split('@')[0]}@${receivingDomain}`;
  const response = await stack.post('/email/retrieve-outlook-account', { alias, forwardsTo, keepSender });
  expect(response).toMatchObject({ status: 200, body: { email, alias } });
  return alias;
}

type AccountView = {
  email: string;
  state: string;
  watcher: string | null;
  mode: 'idle' | 'poll' | null;
  lastError: string | null;
  forwarded: number;
};

async function accounts(): Promise<AccountView[]> {
  const response = await fetch(`http://127.0.0.1:${stack.api.port}/v1/admin/mail/outlook-accounts`, {
    headers: { authorization: basic(operator) },
  });
  return ((await response.json()) as { accounts: AccountView[] }).accounts;
}

const subjectsTo = (address: string) => stack.sink.to(address).map((sent) => /^Subject: (.*)$/m.exec(sent.raw.toString())?.[1]);
/** The subjects that reached the sink, sorted: deliveries run in parallel, so messages stored together may arrive in either order. */
const sortedSubjectsTo = (address: string) => subjectsTo(address).sort();
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));
const watcherOf = (process: QuarryProcess) => `:${process.pid}:`;

beforeAll(async () => {
  [idleServer, pollServer, resetServer] = await Promise.all([
    startPrivateDovecot({ users }),
    startPrivateDovecot({ users: [{ user: 'poll@pool.test', password }], idle: false }),
    startPrivateDovecot({ users: [{ user: 'reset@pool.test', password }] }),
  ]);
  stack = await startMailStack('mailbox', {
    MAILBOX_LEASE_MS: '2000',
    // Long enough that only IDLE explains a forward well within it on the IDLE server.
    MAILBOX_POLL_MS: String(pollMs),
    MAILBOX_LOGIN_RETRY_MS: '100',
    MAILBOX_MAX_LOGIN_FAILURES: '2',
  });
  operator = (await createClient({ db: stack.db, secretKey: Buffer.alloc(32, 5) }, { name: 'operator', scopes: ['admin'] })).secret;
});

afterAll(async () => {
  await stack?.stop();
  await Promise.all([idleServer?.remove(), pollServer?.remove(), resetServer?.remove()]);
});

describe('loading the pool', () => {
  it('refuses an account whose mailbox cannot be read, naming the server answer, and loads the others', async () => {
    const result = await load(idleServer, [
      { email: 'idle-1@pool.test', password: 'wrong-password' },
      { email: 'nobody@pool.test', password },
    ]);
    expect(result.loaded).toBe(0);
    expect(result.refused).toEqual([
      { email: 'idle-1@pool.test', error: expect.stringContaining('Authentication failed') },
      { email: 'nobody@pool.test', error: expect.stringContaining('Authentication failed') },
    ]);
    expect((await accounts()).map((account) => account.email)).not.toContain('idle-1@pool.test');
  });
});

describe('a handed-out account', () => {
  it('forwards a message arriving in INBOX once, with the binding rewrite, leaving it in the mailbox marked $Forwarded (IDLE)', async () => {
    // Mail from before the hand-out belongs to no client: not forwarded.
    expect((await load(idleServer, [{ email: 'idle-1@pool.test', password }])).refused).toEqual([]);
    await append(idleServer, 'idle-1@pool.test', message('before-hand-out'), { date: new Date(Date.now() - 3_600_000) });
    const alias = `alias-idle-1@${receivingDomain}`;
    expect(await stack.post('/email/retrieve-outlook-account', { alias, forwardsTo: 'first@dest.test' })).toMatchObject({ status: 200 });
    await waitFor('the account watched', async () => (await accounts()).find((account) => account.email === 'idle-1@pool.test')?.watcher);

    await append(idleServer, 'idle-1@pool.test', message('idle-one'));
    await waitFor('the message forwarded', () => stack.sink.to('first@dest.test').length === 1);
    await settle();
    expect(subjectsTo('first@dest.test')).toEqual(['idle-one']);
    const [sent] = stack.sink.to('first@dest.test');
    // keepSender false: From is ours, the author kept for replies, the envelope sender SRS-free (no Return-Path).
    expect(sent?.raw.toString()).toMatch(new RegExp(`^From: .*<${relaySender}>`, 'm'));
    expect(sent?.raw.toString()).toMatch(/^Reply-To: Carol <carol@sender.test>/m);
    expect(sent?.raw.toString()).toMatch(/^Received: from 127\.0\.0\.1 by mx\.quarry\.test with IMAP/m);

    // Still in the mailbox, marked: a message IDLE woke the session for is marked with the next full read of its folder.
    const marks = async () => {
      const client = new ImapFlow({
        host: idleServer.host,
        port: idleServer.port,
        secure: false,
        auth: { user: 'idle-1@pool.test', pass: password },
        logger: false,
      });
      await client.connect();
      try {
        await client.mailboxOpen('INBOX', { readOnly: true });
        const flags = [];
        for await (const fetched of client.fetch('1:*', { uid: true, flags: true, envelope: true }))
          flags.push([fetched.envelope?.subject, [...(fetched.flags ?? [])].includes('$Forwarded')]);
        return flags;
      } finally {
        await client.logout();
      }
    };
    await waitFor(
      'the forwarded message marked',
      async () => (await marks()).some(([subject, marked]) => subject === 'idle-one' && marked),
      { timeoutMs: pollMs * 3 },
    );
    expect(await marks()).toEqual([
      ['before-hand-out', false],
      ['idle-one', true],
    ]);
    expect((await accounts()).find((account) => account.email === 'idle-1@pool.test')).toMatchObject({ state: 'ok', forwarded: 1 });
  });

  it('forwards Junk too, and a message moved from Junk to INBOX is not forwarded twice', async () => {
    await handOut(idleServer, 'junk@pool.test', 'junk@dest.test', true);
    await append(idleServer, 'junk@pool.test', message('in-junk'), { folder: 'Junk' });
    await waitFor('the junk message forwarded', () => stack.sink.to('junk@dest.test').length === 1);
    await append(idleServer, 'junk@pool.test', message('in-junk'));
    await append(idleServer, 'junk@pool.test', message('after-junk'));
    await waitFor('the next message forwarded', () => stack.sink.to('junk@dest.test').length === 2);
    await settle();
    expect(subjectsTo('junk@dest.test')).toEqual(['in-junk', 'after-junk']);
    // keepSender true: the author's From stays.
    expect(stack.sink.to('junk@dest.test')[0]?.raw.toString()).toMatch(/^From: Carol <carol@sender.test>/m);
  });

  it('follows INBOX in IDLE where the server offers it: a new message is forwarded well within the poll interval', async () => {
    await handOut(idleServer, 'idle-timing@pool.test', 'timing@dest.test');
    await waitFor('the account watched in IDLE', async () =>
      (await accounts()).find((account) => account.email === 'idle-timing@pool.test' && account.watcher && account.mode === 'idle'),
    );
    // Each message is appended once the one before was forwarded. A poller reads again only
    // MAILBOX_POLL_MS after the read that took the one before, so without IDLE the second and
    // third would each wait about that long; in IDLE, the server's notice wakes the reader.
    const latencies: number[] = [];
    for (const id of ['timing-1', 'timing-2', 'timing-3']) {
      const appended = Date.now();
      await append(idleServer, 'idle-timing@pool.test', message(id));
      await waitFor(`${id} forwarded`, () => subjectsTo('timing@dest.test').includes(id));
      latencies.push(Date.now() - appended);
    }
    expect(
      latencies.slice(1).every((ms) => ms < pollMs / 2),
      `append → forward ${latencies.join(', ')} ms, polling every ${pollMs} ms`,
    ).toBe(true);
  });

  it('forwards by polling when the server offers no IDLE, and says so to operators', async () => {
    await handOut(pollServer, 'poll@pool.test', 'polled@dest.test');
    await append(pollServer, 'poll@pool.test', message('polled-one'));
    await append(pollServer, 'poll@pool.test', message('polled-two'));
    await waitFor('both polled messages forwarded', () => stack.sink.to('polled@dest.test').length === 2);
    await settle();
    expect(sortedSubjectsTo('polled@dest.test')).toEqual(['polled-one', 'polled-two']);
    expect((await accounts()).find((account) => account.email === 'poll@pool.test')).toMatchObject({ mode: 'poll' });
  });

  it('forwards nothing twice and loses nothing when the mail process is killed in the middle', async () => {
    await handOut(idleServer, 'restart@pool.test', 'restart@dest.test');
    await append(idleServer, 'restart@pool.test', message('restart-1'));
    await waitFor('the first message forwarded', () => stack.sink.to('restart@dest.test').length === 1);

    // The second message's storing transaction waits behind ours on its Message-ID: the process dies inside it.
    const held = await stack.db.connect();
    await held.query('BEGIN');
    await held.query("INSERT INTO mail_mailbox_seen (email, message_key) VALUES ('restart@pool.test', 'mid:<restart-2@sender.test>')");
    try {
      await append(idleServer, 'restart@pool.test', message('restart-2'));
      await append(idleServer, 'restart@pool.test', message('restart-3'));
      await waitFor(
        'the second message being stored',
        async () => (await lockWaiters(stack.db, 'INSERT INTO mail_mailbox_seen')).length === 1,
      );
      stack.mail.child.kill('SIGKILL');
      await stack.mail.exited;
    } finally {
      await held.query('ROLLBACK');
      held.release();
    }
    const restarted = await stack.startMail();
    stack.mail = restarted.process;
    await waitFor('every message forwarded after the restart', () => stack.sink.to('restart@dest.test').length >= 3, { timeoutMs: 30_000 });
    await settle();
    expect(sortedSubjectsTo('restart@dest.test')).toEqual(['restart-1', 'restart-2', 'restart-3']);
  });

  it('reads a folder again after a UIDVALIDITY change without forwarding anything twice', async () => {
    await handOut(resetServer, 'reset@pool.test', 'reset@dest.test');
    await append(resetServer, 'reset@pool.test', message('reset-1'));
    await append(resetServer, 'reset@pool.test', message('reset-2'));
    await waitFor('two messages forwarded', () => stack.sink.to('reset@dest.test').length === 2);
    const before = await stack.db.query<{ uidvalidity: string }>(
      "SELECT uidvalidity FROM mail_mailbox_progress WHERE email = 'reset@pool.test' AND folder = 'INBOX'",
    );

    await resetServer.resetUidValidity('reset@pool.test');
    await append(resetServer, 'reset@pool.test', message('reset-3'));
    await waitFor('the new message forwarded', () => stack.sink.to('reset@dest.test').length >= 3, { timeoutMs: 30_000 });
    await waitFor('the checkpoint under the new UIDVALIDITY', async () => {
      const after = await stack.db.query<{ uidvalidity: string; last_uid: string }>(
        "SELECT uidvalidity, last_uid FROM mail_mailbox_progress WHERE email = 'reset@pool.test' AND folder = 'INBOX'",
      );
      return after.rows[0]?.uidvalidity !== before.rows[0]?.uidvalidity && after.rows[0]?.last_uid === '3';
    });
    await settle();
    expect(sortedSubjectsTo('reset@dest.test')).toEqual(['reset-1', 'reset-2', 'reset-3']);
  });

  it('marks an account whose login is refused broken after its retries, with the server answer, for operators', async () => {
    expect((await load(idleServer, [{ email: 'broken@pool.test', password }])).refused).toEqual([]);
    await idleServer.setUser({ user: 'broken@pool.test', password: 'changed-by-the-owner' });
    expect(
      await stack.post('/email/retrieve-outlook-account', { alias: `alias-broken@${receivingDomain}`, forwardsTo: 'broken@dest.test' }),
    ).toMatchObject({ status: 200 });
    const broken = await waitFor(
      'the account broken',
      async () => (await accounts()).find((account) => account.email === 'broken@pool.test' && account.state === 'broken'),
      {
        timeoutMs: 30_000,
      },
    );
    expect(broken).toMatchObject({ watcher: null, lastError: expect.stringContaining('Authentication failed') });
    expect((await accounts())[0]?.email).toBe('broken@pool.test');
  });
});

describe('two mail processes', () => {
  it('share the accounts without forwarding twice, and one killed hands its accounts over', async () => {
    const aliases = [
      await handOut(idleServer, 'idle-2@pool.test', 'shared-2@dest.test'),
      await handOut(idleServer, 'idle-3@pool.test', 'shared-3@dest.test'),
    ];
    expect(aliases).toHaveLength(2);
    const second = (await stack.startMail()).process;
    const first = stack.mail;
    // Both processes end up watching some of the accounts.
    await waitFor(
      'the accounts shared',
      async () => {
        const watchers = (await accounts()).filter((account) => account.state === 'ok').map((account) => account.watcher ?? '');
        return (
          watchers.some((watcher) => watcher.includes(watcherOf(first))) &&
          watchers.some((watcher) => watcher.includes(watcherOf(second))) &&
          !watchers.includes('')
        );
      },
      { timeoutMs: 30_000 },
    );
    const destinations: Record<string, { server: PrivateDovecot; to: string }> = {
      'idle-1@pool.test': { server: idleServer, to: 'first@dest.test' },
      'idle-2@pool.test': { server: idleServer, to: 'shared-2@dest.test' },
      'idle-3@pool.test': { server: idleServer, to: 'shared-3@dest.test' },
      'restart@pool.test': { server: idleServer, to: 'restart@dest.test' },
      'idle-timing@pool.test': { server: idleServer, to: 'timing@dest.test' },
      'junk@pool.test': { server: idleServer, to: 'junk@dest.test' },
      'poll@pool.test': { server: pollServer, to: 'polled@dest.test' },
      'reset@pool.test': { server: resetServer, to: 'reset@dest.test' },
    };
    // Every watched account forwards, whichever process watches it (and the earlier tests handed out more).
    const watched = (await accounts()).filter((account) => account.state === 'ok' && account.watcher).map((account) => account.email);
    for (const email of watched) await append(destinations[email]!.server, email, message(`shared-${email.split('@')[0]}`));
    await waitFor(
      'each forwarded',
      () => watched.every((email) => subjectsTo(destinations[email]!.to).includes(`shared-${email.split('@')[0]}`)),
      { timeoutMs: 30_000 },
    );

    // SIGKILL the first: its accounts go to the second once their leases run out.
    const orphaned = (await accounts()).filter((account) => account.watcher?.includes(watcherOf(first))).map((account) => account.email);
    expect(orphaned.length).toBeGreaterThan(0);
    first.child.kill('SIGKILL');
    await first.exited;
    stack.mail = second;
    await waitFor('the orphaned accounts watched by the second process', async () =>
      (await accounts())
        .filter((account) => orphaned.includes(account.email))
        .every((account) => account.watcher?.includes(watcherOf(second))),
    );
    const subjectOf = (email: string) => `handed-over-${email.split('@')[0]}`;
    for (const email of orphaned) await append(destinations[email]!.server, email, message(subjectOf(email)));
    await waitFor('the handed-over accounts forwarding again', () =>
      orphaned.every((email) => subjectsTo(destinations[email]!.to).includes(subjectOf(email))),
    );
    await settle();
    for (const { to } of Object.values(destinations)) {
      const subjects = subjectsTo(to);
      expect(new Set(subjects).size, `${to}: ${subjects.join(', ')}`).toBe(subjects.length);
    }
  });
});
