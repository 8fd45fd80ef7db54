import { createClient } from '@quarry/auth';
import { openSmtp, sendSmtp, startPrivateDovecot, waitFor, type PrivateDovecot } from '@quarry/testing';
import { authenticate, dkimSign } from 'mailauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dkimKeyPair, receivingDomain, relaySender, startMailStack, stubResolver, type MailStack } from './support/smtp-stack.ts';

let stack: MailStack;
const authorKey = dkimKeyPair();
const at = (local: string) => `${local}@${receivingDomain}`;

const message = (options: { from?: string; to?: string; subject?: string; extraHeaders?: string; body?: string } = {}) =>
  `From: ${options.from ?? 'Alice Author <alice@sender.test>'}\r\n` +
  `To: ${options.to ?? 'someone@fwd.test'}\r\n` +
  `Subject: ${options.subject ?? 'hello'}\r\n` +
  `Date: Sun, 22 Nov 2026 05:00:00 +0000\r\n` +
  `Message-ID: <${Math.random().toString(36).slice(2)}@sender.test>\r\n` +
  (options.extraHeaders ?? '') +
  `\r\n${options.body ?? 'Hello there.\r\n.leading dot line\r\nBye.\r\n'}`;

beforeAll(async () => {
  stack = await startMailStack('mail_fwd', { SMTP_MAX_MESSAGE_BYTES: '100000', SMTP_MAX_RECIPIENTS: '3' });
});

afterAll(async () => {
  await stack?.stop();
});

describe('bindings API', () => {
  it('creates, refuses duplicates, updates, extends and deletes, scoped to the owner', async () => {
    const recipient = at('api-one');
    const created = await stack.post('/Forwarding/bind', { recipient: recipient.toUpperCase(), forwardsTo: 'dest@dest.test' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ message: 'created', binding: { recipient, forwardsTo: 'dest@dest.test', keepSender: false } });
    const expiresAt = Date.parse((created.body.binding as { expiresAt: string }).expiresAt);
    const inAYear = new Date();
    inAYear.setUTCFullYear(inAYear.getUTCFullYear() + 1);
    expect(Math.abs(expiresAt - inAYear.getTime())).toBeLessThan(60_000);

    const duplicate = await stack.post('/Forwarding/bind', { recipient, forwardsTo: 'other@dest.test' });
    expect(duplicate).toMatchObject({ status: 409, body: { object: 'error', name: 'BindingAlreadyExists' } });
    // Many to one: another recipient may forward to the same destination.
    expect((await stack.post('/Forwarding/bind', { recipient: at('api-two'), forwardsTo: 'dest@dest.test' })).status).toBe(200);

    const updated = await stack.post('/Forwarding/updateBinding', { recipient, forwardsTo: 'new@dest.test', keepSender: true });
    expect(updated).toMatchObject({
      status: 200,
      body: { message: 'updated', binding: { forwardsTo: 'new@dest.test', keepSender: true } },
    });
    // keepSender has no default on update: leaving it out keeps the current value.
    const kept = await stack.post('/Forwarding/updateBinding', { recipient, forwardsTo: 'newer@dest.test' });
    expect(kept.body).toMatchObject({ binding: { forwardsTo: 'newer@dest.test', keepSender: true } });

    for (const latestDate of ['2027-03-01', '2027-03-01T00:00:00.000Z', 'Mon Mar 01 2027 00:00:00 GMT+0000 (Coordinated Universal Time)']) {
      const extended = await stack.post('/Forwarding/updateExpiresAt', { recipient, latestDate });
      expect(extended).toMatchObject({
        status: 200,
        body: { message: 'date updated', binding: { expiresAt: '2027-05-30T00:00:00.000Z' } },
      });
    }
    const badDate = await stack.post('/Forwarding/updateExpiresAt', { recipient, latestDate: 'next tuesday' });
    expect(badDate).toMatchObject({ status: 400, body: { name: 'RequestParametersValidationError' } });
    expect(JSON.stringify(badDate.body)).toContain('latestDate');
    // An extension never ends a binding (that would free the recipient for another client to bind).
    const past = await stack.post('/Forwarding/updateExpiresAt', { recipient, latestDate: '2020-01-01' });
    expect(past).toMatchObject({ status: 400, body: { name: 'RequestParametersValidationError' } });
    expect(JSON.stringify(past.body)).toContain('latestDate');
    expect(
      await stack.post(
        '/Forwarding/bind',
        { recipient, forwardsTo: 'thief@dest.test' },
        (await createClient({ db: stack.db, secretKey: Buffer.alloc(32, 5) }, { name: 'next tenant', scopes: ['forwarding'] })).secret,
      ),
    ).toMatchObject({ status: 409 });

    const other = await createClient({ db: stack.db, secretKey: Buffer.alloc(32, 5) }, { name: 'other tenant', scopes: ['forwarding'] });
    for (const path of ['/Forwarding/updateBinding', '/Forwarding/updateExpiresAt', '/Forwarding/deleteBinding']) {
      const foreign = await stack.post(path, { recipient, forwardsTo: 'x@dest.test', latestDate: '2027-01-01' }, other.secret);
      expect(foreign).toMatchObject({ status: 404, body: { name: 'BindingNotFound' } });
    }

    const read = await fetch(`http://127.0.0.1:${stack.api.port}/Forwarding/binding?recipient=${encodeURIComponent(recipient)}`, {
      headers: { authorization: `Basic ${Buffer.from(`${stack.secret}:`).toString('base64')}` },
    });
    expect(await read.json()).toMatchObject({
      binding: { recipient, counters: { received: 0, delivered: 0, bounced: 0, lastDeliveredAt: null } },
    });

    expect(await stack.post('/Forwarding/deleteBinding', { recipient })).toMatchObject({ status: 200, body: { message: 'deleted' } });
    expect(await stack.post('/Forwarding/deleteBinding', { recipient })).toMatchObject({ status: 404, body: { name: 'BindingNotFound' } });
  });

  it('answers 400 naming each bad field, and refuses recipients outside the receiving domains', async () => {
    const invalid = await stack.post('/Forwarding/bind', { recipient: 'not-an-address', keepSender: 'yes' });
    expect(invalid.status).toBe(400);
    const messages = (invalid.body.details as { messages: string[] }).messages.join('\n');
    expect(messages).toMatch(/recipient/);
    expect(messages).toMatch(/forwardsTo/);
    expect(messages).toMatch(/keepSender/);

    const foreign = await stack.post('/Forwarding/bind', { recipient: 'someone@gmail.test', forwardsTo: 'dest@dest.test' });
    expect(foreign.status).toBe(400);
    expect(JSON.stringify(foreign.body)).toContain('not a domain this service receives mail for');
    const intoOurselves = await stack.post('/Forwarding/bind', { recipient: at('loop-a'), forwardsTo: at('loop-b') });
    expect(intoOurselves.status).toBe(400);
  });

  it('needs a credential with the forwarding scope', async () => {
    expect((await stack.post('/Forwarding/bind', {}, 'qs_wrong')).status).toBe(401);
    const recruiter = await createClient({ db: stack.db, secretKey: Buffer.alloc(32, 5) }, { name: 'recruiter', scopes: ['recruitment'] });
    expect((await stack.post('/Forwarding/bind', { recipient: at('x'), forwardsTo: 'd@dest.test' }, recruiter.secret)).status).toBe(403);
  });

  it('lets bind replace an expired binding', async () => {
    await stack.bind(at('reuse'), 'first@dest.test');
    await stack.db.query(`UPDATE mail_bindings SET expires_at = now() - interval '1 second' WHERE recipient = $1`, [at('reuse')]);
    const replaced = await stack.post('/Forwarding/bind', { recipient: at('reuse'), forwardsTo: 'second@dest.test' });
    expect(replaced).toMatchObject({ status: 200, body: { message: 'created', binding: { forwardsTo: 'second@dest.test' } } });
  });
});

describe('inbound SMTP', () => {
  it('advertises its extensions and accepts RCPT only for active bindings: never an open relay', async () => {
    await stack.bind(at('known'), 'known-dest@dest.test');
    const client = await openSmtp(stack.smtpPort);
    try {
      expect(client.greeting.code).toBe(220);
      const ehlo = await client.command('EHLO client.test');
      for (const extension of ['SIZE 100000', '8BITMIME', 'SMTPUTF8', 'ENHANCEDSTATUSCODES', 'PIPELINING'])
        expect(ehlo.text).toContain(extension);
      expect(ehlo.text).not.toContain('STARTTLS'); // no certificate configured
      expect((await client.command('MAIL FROM:<a@sender.test>')).code).toBe(250);
      expect(await client.command(`RCPT TO:<${at('nobody')}>`)).toMatchObject({ code: 550, text: expect.stringMatching(/^5\.1\.1 /) });
      expect(await client.command('RCPT TO:<victim@elsewhere.test>')).toMatchObject({
        code: 550,
        text: expect.stringMatching(/^5\.1\.1 .*relay/),
      });
      expect(await client.command(`RCPT TO:<${at('KNOWN')}>`)).toMatchObject({ code: 250 });
    } finally {
      await client.close();
    }
  });

  it('stops accepting at the moment a binding expires, and follows extension and deletion at once', async () => {
    await stack.bind(at('timed'), 'timed-dest@dest.test');
    const rcpt = async () => (await sendSmtp(stack.smtpPort, { from: 'a@sender.test', to: [at('timed')], raw: message() })).rcpt[0]?.code;
    expect(await rcpt()).toBe(250);
    await stack.db.query(`UPDATE mail_bindings SET expires_at = now() WHERE recipient = $1`, [at('timed')]);
    expect(await rcpt()).toBe(550);
    expect((await stack.post('/Forwarding/updateExpiresAt', { recipient: at('timed'), latestDate: new Date().toISOString() })).status).toBe(
      200,
    );
    expect(await rcpt()).toBe(250);
    expect((await stack.post('/Forwarding/deleteBinding', { recipient: at('timed') })).status).toBe(200);
    expect(await rcpt()).toBe(550);
  });

  it('answers 452 4.5.3 past the recipient limit, and delivers one copy per destination', async () => {
    for (const local of ['multi-1', 'multi-2', 'multi-3']) await stack.bind(at(local), 'shared-dest@dest.test');
    const sent = await sendSmtp(stack.smtpPort, {
      from: 'a@sender.test',
      to: [at('multi-1'), at('multi-2'), at('multi-3'), at('known')],
      raw: message(),
    });
    expect(sent.rcpt.map((reply) => reply.code)).toEqual([250, 250, 250, 452]);
    expect(sent.rcpt[3]?.text).toMatch(/^4\.5\.3 /);
    expect(sent.data?.code).toBe(250);
    await waitFor('one copy for the shared destination', () => stack.sink.to('shared-dest@dest.test').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stack.sink.to('shared-dest@dest.test')).toHaveLength(1);
  });

  it('refuses oversize mail, declared or actual, with 552', async () => {
    await stack.bind(at('big'), 'big-dest@dest.test');
    const declared = await sendSmtp(stack.smtpPort, { from: 'a@sender.test', to: [at('big')], raw: message(), mailParams: 'SIZE=200000' });
    expect(declared.mail.code).toBe(552);
    const actual = await sendSmtp(stack.smtpPort, {
      from: 'a@sender.test',
      to: [at('big')],
      raw: message({ body: `${'x'.repeat(990)}\r\n`.repeat(110) }),
    });
    expect(actual.data).toMatchObject({ code: 552, text: expect.stringMatching(/^5\.3\.4 /) });
    expect(stack.sink.to('big-dest@dest.test')).toHaveLength(0);
  });

  it('rejects a loop: too many Received headers, or a message already delivered to this address', async () => {
    await stack.bind(at('loopy'), 'loopy-dest@dest.test');
    const hops = Array.from(
      { length: 30 },
      (_, index) => `Received: from hop${index}.test by hop${index + 1}.test; Sun, 22 Nov 2026 05:00:00 +0000\r\n`,
    ).join('');
    const manyHops = await sendSmtp(stack.smtpPort, { from: 'a@sender.test', to: [at('loopy')], raw: hops + message() });
    expect(manyHops.data).toMatchObject({ code: 554, text: expect.stringContaining('loop') });
    const seen = await sendSmtp(stack.smtpPort, {
      from: 'a@sender.test',
      to: [at('loopy')],
      raw: `Delivered-To: ${at('loopy')}\r\n${message()}`,
    });
    expect(seen.data).toMatchObject({ code: 554, text: expect.stringContaining('loop') });
    const fine = await sendSmtp(stack.smtpPort, { from: 'a@sender.test', to: [at('loopy')], raw: message() });
    expect(fine.data?.code).toBe(250);
  });
});

describe('forwarding rules, verified on what the destination received', () => {
  // One set of DNS records for both ends: the destination's checks here, and our mail process's
  // own checks when it ARC-seals (served to it over UDP on loopback).
  const records = () => ({
    'TXT:quarry._domainkey.relay.test': stack.relayKey.dnsRecord,
    'TXT:_dmarc.relay.test': 'v=DMARC1; p=reject',
    'TXT:relay.test': 'v=spf1 ip4:127.0.0.1 -all',
    'TXT:author._domainkey.sender.test': authorKey.dnsRecord,
    'TXT:_dmarc.sender.test': 'v=DMARC1; p=reject',
    'TXT:sender.test': 'v=spf1 ip4:192.0.2.1 -all',
  });
  const dns = () => stubResolver(records());
  beforeAll(() => stack.dns.serve(records()));

  it('keepSender false: From is the relay sender, the author moves to Reply-To, DKIM and DMARC pass for the relay domain', async () => {
    await stack.bind(at('plain'), 'plain-dest@dest.test', false);
    const sent = await sendSmtp(stack.smtpPort, {
      from: 'alice@sender.test',
      to: [at('plain')],
      raw: message({ to: at('plain'), subject: 'rewritten' }),
    });
    expect(sent.data?.code).toBe(250);
    const [received] = await waitFor('forwarded copy', () =>
      stack.sink.to('plain-dest@dest.test').length > 0 ? stack.sink.to('plain-dest@dest.test') : undefined,
    );
    const text = received!.raw.toString('latin1');
    expect(text).toMatch(/^From: "Alice Author \(alice at sender\.test\) via relay\.test"\s+<forwarder@relay\.test>\r$/m);
    expect(text).toMatch(/^X-Original-From: Alice Author <alice@sender\.test>\r$/m);
    expect(text).toMatch(/^DKIM-Signature: /);
    // Our own DKIM signature carries the message: no ARC set on a rewritten one.
    expect(text).not.toMatch(/^ARC-/m);
    expect(text).toMatch(/^Reply-To: Alice Author <alice@sender\.test>\r$/m);
    expect(text).toMatch(/^Received: from client\.test .*\r\n\tby mx\.quarry\.test \(Quarry\) with ESMTP/m);
    expect(text).toMatch(/^Delivered-To: plain@fwd\.test\r$/m);
    // The body is untouched, dot-stuffing undone on the way in and redone on the way out.
    expect(text).toContain('\r\n\r\nHello there.\r\n.leading dot line\r\nBye.\r\n');
    expect(received!.from).toMatch(/^SRS0=[a-z2-7]+=[a-z2-7]{2}=sender\.test=alice@relay\.test$/);

    const result = await authenticate(received!.raw, {
      ip: '127.0.0.1',
      helo: 'mx.quarry.test',
      sender: received!.from,
      mta: 'dest.test',
      resolver: dns(),
      disableArc: true,
      disableBimi: true,
    });
    const ours = result.dkim.results.find((entry) => entry.signingDomain === 'relay.test');
    expect(ours?.status.result).toBe('pass');
    expect(result.spf && result.spf.status.result).toBe('pass');
    expect(result.dmarc && result.dmarc.status.result).toBe('pass');
  });

  it('keepSender true: headers and body arrive byte-identical under our trace lines and ARC set, the author DKIM and our ARC chain pass, the sender is SRS-rewritten', async () => {
    await stack.bind(at('kept'), 'kept-dest@dest.test', true);
    const unsigned = message({ to: at('kept'), subject: 'untouched', body: 'Body line one\r\nBody line two\r\n' });
    const key = { signingDomain: 'sender.test', selector: 'author', privateKey: authorKey.privateKey };
    const signature = await dkimSign(unsigned, { ...key, signatureData: [key], canonicalization: 'simple/simple' });
    expect(signature.signatures).toMatch(/^DKIM-Signature: /);
    const original = signature.signatures + unsigned;
    const sent = await sendSmtp(stack.smtpPort, { from: 'alice@sender.test', to: [at('kept')], raw: original });
    expect(sent.data?.code).toBe(250);
    const [received] = await waitFor('forwarded copy', () =>
      stack.sink.to('kept-dest@dest.test').length > 0 ? stack.sink.to('kept-dest@dest.test') : undefined,
    );
    const text = received!.raw.toString('latin1');
    expect(text.endsWith(original)).toBe(true);
    const added = text.slice(0, text.length - original.length);
    // The ARC set first: sealed by the relay domain, saying what we verified on arrival (the
    // author's DKIM passed; SPF of the client, 127.0.0.1, failed for sender.test).
    expect(added).toMatch(/^ARC-Seal: i=1; a=rsa-sha256; t=\d+; cv=none; d=relay\.test; s=quarry;/);
    const arcResults = /\r\nARC-Authentication-Results: (i=1; mx\.quarry\.test;[^]*?)\r\n(?![ \t])/.exec(added)?.[1] ?? '';
    expect(arcResults).toMatch(/\bdkim=pass header\.i=@sender\.test header\.s=author\b/);
    expect(arcResults).toMatch(/\bspf=fail .* smtp\.mailfrom=alice@sender\.test/);
    expect(arcResults).toMatch(/\bdmarc=pass\b/);
    expect(added).toMatch(/\r\nARC-Message-Signature: i=1; /);
    expect(added).toMatch(/\r\nDelivered-To: kept@fwd\.test\r\nReceived: from client\.test[^]*$/);
    expect(received!.from).toMatch(/^SRS0=.*=sender\.test=alice@relay\.test$/);

    const result = await authenticate(received!.raw, {
      ip: '127.0.0.1',
      helo: 'mx.quarry.test',
      sender: received!.from,
      mta: 'dest.test',
      resolver: dns(),
      disableBimi: true,
    });
    expect(result.dkim.results.find((entry) => entry.signingDomain === 'sender.test')?.status.result).toBe('pass');
    expect(result.spf && result.spf.status.result).toBe('pass'); // SRS: SPF is checked for relay.test
    expect(result.dmarc && result.dmarc.status.result).toBe('pass'); // via the author's aligned DKIM
    expect(result.arc && result.arc.status.result).toBe('pass');

    // A bounce to the SRS address comes back to the original sender; a forged one is refused.
    const bounce = await sendSmtp(stack.smtpPort, {
      from: '',
      to: [received!.from],
      raw: message({ from: 'MAILER-DAEMON@dest.test', subject: 'Undelivered' }),
    });
    expect(bounce.data?.code).toBe(250);
    await waitFor('reversed bounce', () => stack.sink.to('alice@sender.test').length === 1);
    expect(stack.sink.to('alice@sender.test')[0]?.from).toBe('');
    const forged = received!.from.replace(/^SRS0=[a-z2-7]+=/, 'SRS0=aaaaaa=');
    expect((await sendSmtp(stack.smtpPort, { from: '', to: [forged], raw: message() })).rcpt[0]?.code).toBe(553);
    expect((await sendSmtp(stack.smtpPort, { from: 'spammer@else.test', to: [received!.from], raw: message() })).rcpt[0]?.code).toBe(550);
  });

  it('passes 8-bit mail on byte for byte, declared BODY=8BITMIME to a next hop that offers it', async () => {
    await stack.bind(at('eightbit'), 'eightbit-dest@dest.test', true);
    const original = Buffer.from(
      message({
        to: at('eightbit'),
        subject: 'utf-8 body',
        extraHeaders: 'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n',
        body: 'Grüße aus Köln.\r\n',
      }),
    );
    const client = await openSmtp(stack.smtpPort);
    try {
      expect((await client.command('EHLO client.test')).text).toMatch(/^8BITMIME$/m);
      expect((await client.command('MAIL FROM:<alice@sender.test> BODY=8BITMIME')).code).toBe(250);
      expect((await client.command(`RCPT TO:<${at('eightbit')}>`)).code).toBe(250);
      expect((await client.data(original)).code).toBe(250);
    } finally {
      await client.close();
    }
    const [received] = await waitFor('forwarded copy', () =>
      stack.sink.to('eightbit-dest@dest.test').length > 0 ? stack.sink.to('eightbit-dest@dest.test') : undefined,
    );
    expect(received!.raw.subarray(received!.raw.length - original.length).equals(original)).toBe(true);
    expect(received!.mailArgs.BODY).toBe('8BITMIME');
  });

  it('counts what a binding received and delivered, for its owner', async () => {
    await stack.bind(at('counted'), 'counted-dest@dest.test');
    for (let index = 0; index < 2; index += 1)
      await sendSmtp(stack.smtpPort, { from: 'a@sender.test', to: [at('counted')], raw: message() });
    await waitFor('two deliveries', () => stack.sink.to('counted-dest@dest.test').length === 2);
    const view = await waitFor('counters', async () => {
      const response = await fetch(`http://127.0.0.1:${stack.api.port}/Forwarding/binding?recipient=${at('counted')}`, {
        headers: { authorization: `Basic ${Buffer.from(`${stack.secret}:`).toString('base64')}` },
      });
      const body = (await response.json()) as {
        binding: { counters: { received: number; delivered: number; lastDeliveredAt: string | null } };
      };
      return body.binding.counters.delivered === 2 ? body.binding.counters : undefined;
    });
    expect(view).toMatchObject({ received: 2, delivered: 2, lastDeliveredAt: expect.any(String) });
  });
});

describe('outlook account pool', () => {
  // Accounts are logged in to once when loaded: their mailboxes live on a private Dovecot.
  let mailboxes: PrivateDovecot;
  const imap = () => ({ host: mailboxes.host, port: mailboxes.port, secure: false });
  beforeAll(async () => {
    const users = ['pool-1', 'race-0', 'race-1', 'race-2', 'race-3'].map((name, index) => ({
      user: `${name}@outlook.test`,
      password: name === 'pool-1' ? 'pw-one-secret' : `pw-${index - 1}`,
    }));
    mailboxes = await startPrivateDovecot({ users });
  });
  afterAll(async () => {
    await mailboxes?.remove();
  });

  it('hands each loaded account out once, with its alias bound, stores it sealed, and answers 503 when empty', async () => {
    const operator = await createClient({ db: stack.db, secretKey: Buffer.alloc(32, 5) }, { name: 'operator', scopes: ['admin'] });
    const loaded = await stack.post(
      '/v1/admin/mail/outlook-accounts',
      { accounts: [{ email: 'pool-1@outlook.test', password: 'pw-one-secret', cookies: 'session=abc', imap: imap() }] },
      operator.secret,
    );
    expect(loaded).toMatchObject({ status: 200, body: { loaded: 1, available: 1 } });
    const stored = await stack.db.query('SELECT * FROM mail_outlook_accounts');
    expect(JSON.stringify(stored.rows)).not.toContain('pw-one-secret');

    // The alias must be ours; a failed request hands nothing out.
    expect((await stack.post('/email/retrieve-outlook-account', { forwardsTo: 'me@dest.test', alias: 'x@gmail.test' })).status).toBe(400);
    const account = await stack.post('/email/retrieve-outlook-account', { forwardsTo: 'me@dest.test', alias: at('outlook-alias') });
    expect(account).toEqual({
      status: 200,
      body: { email: 'pool-1@outlook.test', password: 'pw-one-secret', alias: at('outlook-alias'), cookies: 'session=abc' },
    });
    expect((await sendSmtp(stack.smtpPort, { from: 'a@sender.test', to: [at('outlook-alias')], raw: message() })).rcpt[0]?.code).toBe(250);

    const other = await createClient({ db: stack.db, secretKey: Buffer.alloc(32, 5) }, { name: 'second tenant', scopes: ['forwarding'] });
    const exhausted = await stack.post(
      '/email/retrieve-outlook-account',
      { forwardsTo: 'me@dest.test', alias: at('outlook-alias-2') },
      other.secret,
    );
    expect(exhausted).toMatchObject({ status: 503, body: { name: 'AccountPoolExhausted' } });
    // The alias of the refused request was not bound.
    expect((await sendSmtp(stack.smtpPort, { from: 'a@sender.test', to: [at('outlook-alias-2')], raw: message() })).rcpt[0]?.code).toBe(
      550,
    );
  });

  it('never hands one account to two concurrent requests', async () => {
    const operator = await createClient({ db: stack.db, secretKey: Buffer.alloc(32, 5) }, { name: 'operator 2', scopes: ['admin'] });
    const accounts = Array.from({ length: 4 }, (_, index) => ({
      email: `race-${index}@outlook.test`,
      password: `pw-${index}`,
      imap: imap(),
    }));
    expect((await stack.post('/v1/admin/mail/outlook-accounts', { accounts }, operator.secret)).body).toMatchObject({
      loaded: 4,
      available: 4,
    });
    const results = await Promise.all(
      Array.from({ length: 7 }, (_, index) =>
        stack.post('/email/retrieve-outlook-account', { forwardsTo: 'me@dest.test', alias: at(`race-alias-${index}`) }),
      ),
    );
    const handedOut = results.filter((result) => result.status === 200).map((result) => result.body.email);
    expect(new Set(handedOut).size).toBe(4);
    expect(handedOut).toHaveLength(4);
    expect(results.filter((result) => result.status === 503)).toHaveLength(3);
  });
});

// The relay sender's own domain must never be a binding domain by accident; this keeps the fixture honest.
expect(relaySender.endsWith(`@${receivingDomain}`)).toBe(false);
