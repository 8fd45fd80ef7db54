import { isAscii } from 'node:buffer';
import { afterEach, describe, expect, it } from 'vitest';
import { startSmtpSink } from '@quarry/testing';
import type { SMTPServerOptions } from 'smtp-server';
import { createMailSender, type MailSender, type MessageForHop } from './mail-sender.ts';
import { multipartSample } from '@quarry/testing';

/** A real SMTP server on loopback standing in for the smarthost or an MX, with the test's own settings. */
const startHop = (server: Partial<SMTPServerOptions> = {}) => startSmtpSink({ server });

const noDns = {
  mx: () => Promise.reject(new Error('no DNS in this test')),
  addresses: () => Promise.reject(new Error('no DNS in this test')),
};
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  // Senders first: a hop closes only once its clients have gone.
  for (const closable of open.splice(0).reverse()) await closable.close();
});

function relayTo(url: string, maxConnections = 5): MailSender {
  const sender = createMailSender({ relayUrl: url, hostname: 'relay.test', mxPort: 25, resolver: noDns, maxConnections });
  open.push(sender);
  return sender;
}

const asciiMessage = Buffer.from('From: a@example.org\r\nTo: b@example.net\r\nSubject: plain\r\n\r\nHello.\r\n');
const eightBitMessage = multipartSample({ from: 'a@example.org', textEncoding: '8bit', text: 'Grüße aus Köln, à bientôt.' });
const sevenBitMessage = multipartSample({
  from: 'a@example.org',
  textEncoding: 'quoted-printable',
  text: 'Gr=C3=BC=C3=9Fe aus K=C3=B6ln, =C3=A0 bient=C3=B4t.',
});

/** The message as composed, counting which forms the sender asked for. */
function messageOf(raw: Buffer, sevenBit?: Buffer) {
  const asked: string[] = [];
  const message: MessageForHop = async (form) => {
    asked.push(form);
    if (form === 'seven-bit') {
      if (!sevenBit) throw new Error('no 7-bit form expected');
      return sevenBit;
    }
    return raw;
  };
  return { message, asked };
}

describe('mail sender', () => {
  it('reuses relay sessions, never more at once than allowed, and declares BODY=8BITMIME for 8-bit data only', async () => {
    const hop = await startHop();
    // Slow enough for concurrent sends to need sessions of their own.
    hop.delayData('b@example.net', 20);
    open.push(hop);
    const sender = relayTo(hop.url, 2);

    const first = await sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message);
    const second = await sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(eightBitMessage).message);
    expect([first.outcome, second.outcome]).toEqual(['delivered', 'delivered']);
    expect(hop.connections()).toBe(1);
    expect(hop.messages[0]?.mailArgs.BODY).toBeUndefined();
    expect(hop.messages[1]?.mailArgs.BODY).toBe('8BITMIME');
    expect(hop.messages[1]?.raw.equals(eightBitMessage)).toBe(true);

    const burst = await Promise.all(
      Array.from({ length: 6 }, () => sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message)),
    );
    expect(burst.every((outcome) => outcome.outcome === 'delivered')).toBe(true);
    expect(hop.mostOpen()).toBe(2);
    expect(hop.messages).toHaveLength(8);
  });

  it('sends the 7-bit form to a hop without 8BITMIME, and only then asks for it', async () => {
    const hop = await startHop({ hide8BITMIME: true });
    open.push(hop);
    const sender = relayTo(hop.url);

    const plain = messageOf(asciiMessage);
    expect((await sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, plain.message)).outcome).toBe('delivered');
    expect(plain.asked).toEqual(['as-composed']);

    const eightBit = messageOf(eightBitMessage, sevenBitMessage);
    expect((await sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, eightBit.message)).outcome).toBe('delivered');
    expect(eightBit.asked).toEqual(['as-composed', 'seven-bit']);
    const received = hop.messages[1];
    expect(received?.raw.equals(sevenBitMessage)).toBe(true);
    expect(received && isAscii(received.raw)).toBe(true);
    expect(received?.mailArgs.BODY).toBeUndefined();
  });

  it('returns mail with internationalized addresses as 5.6.7 when the hop lacks SMTPUTF8, and sends it with SMTPUTF8 when not', async () => {
    const without = await startHop({ hideSMTPUTF8: true });
    const withIt = await startHop();
    open.push(without, withIt);

    const refused = await relayTo(without.url).send({ from: 'srs@relay.test', to: 'jörg@example.net' }, messageOf(asciiMessage).message);
    expect(refused).toMatchObject({ outcome: 'permanent', status: '5.6.7' });
    expect(without.messages).toHaveLength(0);

    const sent = await relayTo(withIt.url).send({ from: 'srs@relay.test', to: 'jörg@example.net' }, messageOf(asciiMessage).message);
    expect(sent.outcome).toBe('delivered');
    expect(withIt.messages[0]?.to).toEqual(['jörg@example.net']);
    expect(withIt.messages[0]?.mailArgs.SMTPUTF8).toBe(true);
  });

  it('returns mail sent to us with SMTPUTF8 whose headers hold UTF-8 as 5.6.7 when the hop lacks SMTPUTF8, and passes legacy 8-bit headers on', async () => {
    const without = await startHop({ hideSMTPUTF8: true });
    const withIt = await startHop();
    open.push(without, withIt);
    const utf8Headers = Buffer.from('From: Jörg <joerg@example.org>\r\nTo: b@example.net\r\nSubject: Grüße\r\n\r\nHello.\r\n');
    // UTF-8 only in the body is 8BITMIME's business, not SMTPUTF8's.
    const utf8Body = Buffer.from(
      'From: a@example.org\r\nSubject: plain\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nGrüße.\r\n',
    );
    const envelope = { from: 'srs@relay.test', to: 'b@example.net' };
    const sender = relayTo(without.url);

    const refused = await sender.send({ ...envelope, smtpUtf8: true }, messageOf(utf8Headers).message);
    expect(refused).toMatchObject({ outcome: 'permanent', status: '5.6.7' });
    expect(without.messages).toHaveLength(0);

    expect((await sender.send({ ...envelope, smtpUtf8: false }, messageOf(utf8Headers).message)).outcome).toBe('delivered');
    expect((await sender.send({ ...envelope, smtpUtf8: true }, messageOf(utf8Body).message)).outcome).toBe('delivered');
    expect(without.messages.map((message) => message.raw.equals(utf8Headers) || message.raw.equals(utf8Body))).toEqual([true, true]);

    expect((await relayTo(withIt.url).send({ ...envelope, smtpUtf8: true }, messageOf(utf8Headers).message)).outcome).toBe('delivered');
    expect(withIt.messages[0]?.raw.equals(utf8Headers)).toBe(true);
  });

  it('opens a fresh session when the hop dropped a pooled one, idle or at the next MAIL FROM, instead of deferring the message', async () => {
    // The hop times idle sessions out after 150 ms.
    const idleTimeout = await startHop({ socketTimeout: 150 });
    open.push(idleTimeout);
    const sender = relayTo(idleTimeout.url, 1);
    expect((await sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message)).outcome).toBe('delivered');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message)).outcome).toBe('delivered');
    expect(idleTimeout.connections()).toBe(2);

    // This hop ends every session at its second MAIL FROM with 421, as a hop shutting down does.
    const closing = await startHop({
      onMailFrom(_address, session, callback) {
        if (session.transaction > 1) return callback(Object.assign(new Error('4.3.2 shutting down'), { responseCode: 421 }));
        callback();
      },
    });
    open.push(closing);
    const closingSender = relayTo(closing.url, 1);
    for (let index = 0; index < 3; index += 1) {
      expect((await closingSender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message)).outcome).toBe(
        'delivered',
      );
    }
    expect(closing.messages).toHaveLength(3);
    expect(closing.connections()).toBe(3);
  });

  it('tells a refusal for now (4xx), for good (5xx) and no hop at all apart', async () => {
    let laterAttempts = 0;
    const hop = await startHop();
    hop.onRcpt('later@example.net', () => {
      laterAttempts += 1;
      return { code: 451, message: '4.2.1 try later' };
    });
    hop.onRcpt('never@example.net', () => ({ code: 550, message: '5.1.1 no such user' }));
    open.push(hop);
    const sender = relayTo(hop.url, 1);
    expect((await sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message)).outcome).toBe('delivered');
    // On the reused session: a 4xx is an answer, not a dropped session to try again at once.
    expect(await sender.send({ from: 'srs@relay.test', to: 'later@example.net' }, messageOf(asciiMessage).message)).toMatchObject({
      outcome: 'temporary',
      responseCode: 451,
    });
    expect(laterAttempts).toBe(1);
    expect(await sender.send({ from: 'srs@relay.test', to: 'never@example.net' }, messageOf(asciiMessage).message)).toMatchObject({
      outcome: 'permanent',
      responseCode: 550,
    });
    // The refusals left the session usable: the next message goes over the same one.
    expect((await sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message)).outcome).toBe('delivered');
    expect(hop.connections()).toBe(1);
    expect(hop.messages).toHaveLength(2);

    sender.close();
    await hop.close();
    open.splice(open.indexOf(hop), 1);
    const nobody = await relayTo(hop.url).send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message);
    expect(nobody.outcome).toBe('temporary');
    expect(nobody).not.toHaveProperty('responseCode');
  });

  it('delivers to an MX host with opportunistic TLS: STARTTLS taken, a certificate it cannot verify accepted', async () => {
    // smtp-server offers STARTTLS with its built-in self-signed certificate.
    const mx = await startHop({ disabledCommands: ['AUTH'] });
    open.push(mx);
    const resolver = { mx: async () => [{ exchange: 'mx.example.net', priority: 10 }], addresses: async () => ['127.0.0.1'] };
    const sender = createMailSender({ relayUrl: undefined, hostname: 'relay.test', mxPort: mx.port, resolver, maxConnections: 5 });
    open.push(sender);
    const outcome = await sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message);
    expect(outcome.outcome).toBe('delivered');
    expect(mx.messages[0]?.secure).toBe(true);
  });

  it('defers, not bounces, when the smarthost refuses our credentials, and logs in with the right ones', async () => {
    const hop = await startHop({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      authOptional: false,
      onAuth(auth, _session, callback) {
        if (auth.username === 'relay' && auth.password === 'right') return callback(null, { user: 'relay' });
        callback(Object.assign(new Error('5.7.8 authentication failed'), { responseCode: 535 }));
      },
    });
    open.push(hop);
    const wrong = await relayTo(hop.url.replace('smtp://', 'smtp://relay:wrong@')).send(
      { from: 'srs@relay.test', to: 'b@example.net' },
      messageOf(asciiMessage).message,
    );
    expect(wrong.outcome).toBe('temporary');
    const right = await relayTo(hop.url.replace('smtp://', 'smtp://relay:right@')).send(
      { from: 'srs@relay.test', to: 'b@example.net' },
      messageOf(asciiMessage).message,
    );
    expect(right.outcome).toBe('delivered');
    expect(hop.messages).toHaveLength(1);
  });

  it('fails a send still waiting for a session when it closes, and opens none after', async () => {
    const hop = await startHop();
    open.push(hop);
    const sender = createMailSender({ relayUrl: hop.url, hostname: 'relay.test', mxPort: 25, resolver: noDns, maxConnections: 1 });
    const first = sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message);
    const waiting = sender.send({ from: 'srs@relay.test', to: 'b@example.net' }, messageOf(asciiMessage).message);
    await new Promise((resolve) => setTimeout(resolve, 5));
    sender.close();
    expect((await first).outcome).toBe('delivered');
    expect(await waiting).toMatchObject({ outcome: 'temporary' });
    expect(hop.connections()).toBe(1);
    expect(hop.messages).toHaveLength(1);
  });
});
