import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateDovecot, type PrivateDovecot } from './private-dovecot.ts';

let server: PrivateDovecot;

beforeAll(async () => {
  server = await startPrivateDovecot({ users: [{ user: 'owner@pool.test', password: 'first' }] });
});

afterAll(async () => {
  await server?.remove();
});

/** Logs in and out: null when the server let us in, else what failed. */
async function login(pass: string): Promise<string | null> {
  const client = new ImapFlow({
    host: server.host,
    port: server.port,
    secure: false,
    auth: { user: 'owner@pool.test', pass },
    logger: false,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.logout();
    return null;
  } catch (error) {
    return (error as { authenticationFailed?: boolean }).authenticationFailed ? 'refused' : String(error);
  }
}

describe('the private Dovecot', () => {
  it('takes a changed password from the next login on, even right after a login read the old one', async () => {
    expect(await login('first')).toBeNull();
    await server.setUser({ user: 'owner@pool.test', password: 'second' });
    expect(await login('first')).toBe('refused');
    expect(await login('second')).toBeNull();
  });

  it('keeps no auth penalty for refused logins from loopback, so none slows down the next', async () => {
    for (const pass of ['wrong-1', 'wrong-2', 'wrong-3']) expect(await login(pass)).toBe('refused');
    expect(server.doveadm(['penalty'])).not.toContain('127.0.0.1');
  });
});
