import { holdRowLocks, lockWaiters, sendSmtp, waitFor } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receivingDomain, startMailStack, type MailStack } from './support/smtp-stack.ts';

// ADR 0011: a mail process killed between a destination's 250 and its record of that 250 sends
// the message again (RFC 1047), and a kill at any other point does not. One SIGKILL of a real
// mail process lands at three points at once, held there by the destination and by Postgres.

let stack: MailStack;
const at = (local: string) => `${local}@${receivingDomain}`;
const message = (subject: string) =>
  `From: Bob <bob@sender.test>\r\nTo: someone@fwd.test\r\nSubject: ${subject}\r\nMessage-ID: <${subject}@sender.test>\r\n\r\nHello.\r\n`;
/** The record of a 250, as Postgres shows it while it waits for a lock. */
const recordStatement = "UPDATE mail_deliveries SET state = 'delivered'";

async function delivered(recipient: string): Promise<number> {
  const result = await stack.db.query<{ delivered: string }>(
    'SELECT COALESCE(sum(delivered), 0) AS delivered FROM mail_binding_counters WHERE recipient = $1',
    [recipient],
  );
  return Number(result.rows[0]?.delivered);
}

beforeAll(async () => {
  stack = await startMailStack('mail_window', { MAIL_DELIVERY_CONCURRENCY: '4' });
});

afterAll(async () => {
  await stack?.stop();
});

describe('a mail process killed mid-delivery', () => {
  it('resends only the message whose 250 it had not recorded yet', async () => {
    await stack.bind(at('mid-data'), 'unanswered@dest.test');
    await stack.bind(at('in-window'), 'answered@dest.test');
    await stack.bind(at('recorded'), 'recorded@dest.test');
    const accept = async (local: string) =>
      expect((await sendSmtp(stack.smtpPort, { from: 'bob@sender.test', to: [at(local)], raw: message(local) })).data?.code).toBe(250);

    // 1. The destination has the data and holds its answer.
    const answerUnanswered = stack.sink.holdData('unanswered@dest.test');
    await accept('mid-data');
    await waitFor('data of the unanswered message at the destination', () => stack.sink.dataSeen.includes('unanswered@dest.test'));

    // 2. The destination answered 250; our record of it waits in Postgres behind a row lock.
    const answerInWindow = stack.sink.holdData('answered@dest.test');
    await accept('in-window');
    await waitFor('data of the in-window message at the destination', () => stack.sink.dataSeen.includes('answered@dest.test'));
    const recordHeld = await holdRowLocks(stack.db, "SELECT 1 FROM mail_deliveries WHERE forwards_to = 'answered@dest.test'");
    try {
      expect(recordHeld.rows).toBe(1);
      answerInWindow();
      const [blocked] = await waitFor('the 250 given and its record waiting', async () => {
        const waiters = await lockWaiters(stack.db, recordStatement);
        return stack.sink.to('answered@dest.test').length === 1 && waiters.length === 1 ? waiters : undefined;
      });

      // 3. Another message is answered and recorded meanwhile: its record waits for no other.
      await accept('recorded');
      await waitFor('the recorded message recorded while the other record waits', async () => (await delivered(at('recorded'))) === 1);
      expect(stack.sink.to('recorded@dest.test')).toHaveLength(1);

      stack.mail.child.kill('SIGKILL');
      await stack.mail.exited;
      // Postgres learns that a client died only when it next talks to it, so the dead process's
      // waiting record would still commit once the lock goes: end it, as a kill before the
      // statement reached Postgres would have.
      await stack.db.query('SELECT pg_terminate_backend($1)', [blocked]);
    } finally {
      await recordHeld.release();
    }
    answerUnanswered();

    await stack.startMail();
    await waitFor(
      'every message recorded after the restart',
      async () => (await delivered(at('mid-data'))) === 1 && (await delivered(at('in-window'))) === 1,
      { timeoutMs: 30_000 },
    );
    // Time for any stray copy to show up.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Killed before the 250: the destination dropped the data, the resend is its only copy.
    expect(stack.sink.to('unanswered@dest.test')).toHaveLength(1);
    expect(stack.sink.dataSeen.filter((address) => address === 'unanswered@dest.test')).toHaveLength(2);
    // Killed inside the window: the one duplicate a store-and-forward MTA can make.
    expect(stack.sink.to('answered@dest.test')).toHaveLength(2);
    // Killed after the record: nothing sent again.
    expect(stack.sink.to('recorded@dest.test')).toHaveLength(1);
    expect(await delivered(at('recorded'))).toBe(1);
  });
});
