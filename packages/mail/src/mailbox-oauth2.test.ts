import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createPool, type Pool } from '@quarry/db';
import { createSealer, sealedColumns } from '@quarry/keyring';
import { createTestDatabase, startPrivateDovecot, waitFor, type PrivateDovecot, type TestDatabase } from '@quarry/testing';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMailboxWatcher, type MailboxWatcher } from './mailbox-watcher.ts';
import { loadOutlookAccounts, retrieveOutlookAccount, type AccountPorts } from './outlook-accounts.ts';

// An OAuth2 pool account against a real IMAP server: Dovecot's oauth2 passdb checks each XOAUTH2
// access token at an introspection endpoint on loopback, and a token endpoint on loopback hands out
// access tokens for refresh tokens, rotating the refresh token each time. Only the newest access
// token is good: a login with anything but the token just refreshed is refused.

const email = 'oauth@pool.test';
const password = 'appender-password';
let database: TestDatabase;
let pool: Pool;
let dovecot: PrivateDovecot;
let server: Server;
let base: string;
let watcher: MailboxWatcher | null = null;
/** Refresh token → the one it rotates to; the access token issued with it is `access-<n>`. */
let issued = 0;
let currentRefresh = 'refresh-0';
let currentAccess = '';
const introspected: string[] = [];
/** The identity provider says every token is inactive (revoked, or for someone else). */
let refuseAll = false;
const key = randomBytes(32);

// The deployment's sealer: each value bound to its account's row.
const sealer = createSealer(key);
const { seal, open: openFor } = sealer;
const openSecret = (sealed: Buffer) => openFor(sealedColumns.mailboxSecret, email, sealed);
const openToken = (sealed: Buffer) => openFor(sealedColumns.mailboxAccessToken, email, sealed);

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const form = new URLSearchParams(body);
      const json = (status: number, value: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (request.url === '/token') {
        if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== currentRefresh)
          return json(400, { error: 'invalid_grant' });
        issued += 1;
        currentRefresh = `refresh-${issued}`;
        currentAccess = `access-${issued}`;
        // Shorter than the five minutes before expiry at which a token is renewed: every login refreshes.
        return json(200, { access_token: currentAccess, token_type: 'Bearer', expires_in: 120, refresh_token: currentRefresh });
      }
      if (request.url === '/introspect') {
        const token = form.get('token') ?? '';
        introspected.push(token);
        return json(200, !refuseAll && token !== '' && token === currentAccess ? { active: true, username: email } : { active: false });
      }
      response.writeHead(404).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  dovecot = await startPrivateDovecot({
    users: [
      { user: email, password },
      { user: 'other@pool.test', password },
    ],
    oauth2IntrospectionUrl: `${base}/introspect`,
  });
  database = await createTestDatabase('mailbox_oauth2');
  pool = createPool(database.url, 4);
  await pool.query(
    "INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('c-oauth', 'tenant', '{forwarding}', '\\x01', '\\x02')",
  );
});

afterAll(async () => {
  await watcher?.stop();
  await pool?.end();
  await database?.drop();
  await dovecot?.remove();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

const ports = (): AccountPorts => ({ pool, seal, open: openFor, domains: ['fwd.test'], now: () => new Date() });

async function storedGrant(): Promise<{ secret: Buffer; accessToken: Buffer | null }> {
  const row = (
    await pool.query<{ sealed_secret: Buffer; sealed_access_token: Buffer | null }>(
      'SELECT sealed_secret, sealed_access_token FROM mail_outlook_accounts WHERE email = $1',
      [email],
    )
  ).rows[0];
  if (!row) throw new Error('account not loaded');
  return { secret: row.sealed_secret, accessToken: row.sealed_access_token };
}

it('loads an OAuth2 account by logging in with XOAUTH2, reads its mail, and stores each refreshed grant sealed', async () => {
  const loaded = await loadOutlookAccounts(ports(), {
    accounts: [
      {
        email,
        oauth2: { tokenUrl: `${base}/token`, clientId: 'quarry-app', refreshToken: 'refresh-0' },
        imap: { host: dovecot.host, port: dovecot.port, secure: false },
      },
    ],
  });
  expect(loaded).toMatchObject({ loaded: 1, refused: [] });
  // The load's login used the first access token, and Dovecot asked the introspection endpoint about it.
  expect(introspected).toContain('access-1');
  let grant = await storedGrant();
  expect(JSON.parse(openSecret(grant.secret))).toMatchObject({ oauth2: { refreshToken: 'refresh-1' } });
  expect(openToken(grant.accessToken!)).toBe('access-1');
  for (const plaintext of ['refresh-1', 'access-1']) {
    expect(grant.secret.includes(plaintext)).toBe(false);
    expect(grant.accessToken!.includes(plaintext)).toBe(false);
  }

  await retrieveOutlookAccount(ports(), 'c-oauth', { alias: 'oauth-alias@fwd.test', forwardsTo: 'owner@dest.test' });
  const enqueued: string[] = [];
  watcher = startMailboxWatcher(
    {
      pool,
      enqueueMany: async (jobs) => void enqueued.push(...jobs.map((job) => job.payload.deliveryId)),
      hostname: 'mx.quarry.test',
      watcherId: 'oauth-test:1',
      seal,
      open: openFor,
      now: () => new Date(),
      onError: () => {},
    },
    {
      leaseMs: 2_000,
      maxConnections: 10,
      pollMs: 1_000,
      folders: ['INBOX'],
      loginRetryMs: 100,
      maxLoginFailures: 3,
      seenRetentionMs: 90 * 86_400_000,
    },
  );
  // The watcher's login refreshed again (the stored access token was about to expire): the rotated grant is stored sealed.
  await waitFor(
    'the watcher logged in with a refreshed token',
    async () => (await pool.query("SELECT 1 FROM mail_outlook_accounts WHERE email = $1 AND watch_mode = 'idle'", [email])).rowCount === 1,
  );
  grant = await storedGrant();
  expect(JSON.parse(openSecret(grant.secret))).toMatchObject({ oauth2: { refreshToken: 'refresh-2' } });
  expect(openToken(grant.accessToken!)).toBe('access-2');
  expect(grant.secret.includes('refresh-2')).toBe(false);

  const appender = new ImapFlow({
    host: dovecot.host,
    port: dovecot.port,
    secure: false,
    auth: { user: email, pass: password },
    logger: false,
  });
  await appender.connect();
  await appender.append(
    'INBOX',
    'From: Carol <carol@sender.test>\r\nTo: oauth@pool.test\r\nSubject: over oauth2\r\nMessage-ID: <oauth-1@sender.test>\r\n\r\nHello.\r\n',
  );
  await appender.logout();
  await waitFor('the message stored and queued', () => enqueued.length === 1);
  const stored = await pool.query<{ forwards_to: string; raw: string }>(
    "SELECT d.forwards_to, convert_from(m.raw, 'UTF8') AS raw FROM mail_deliveries d JOIN mail_messages m USING (message_id) WHERE d.delivery_id = $1",
    [enqueued[0]],
  );
  expect(stored.rows[0]?.forwards_to).toBe('owner@dest.test');
  expect(stored.rows[0]?.raw).toContain('Subject: over oauth2');
});

it('refuses to load an account whose access token the IMAP server does not accept, with the server answer', async () => {
  refuseAll = true;
  const result = await loadOutlookAccounts(ports(), {
    accounts: [
      {
        email: 'other@pool.test',
        oauth2: { tokenUrl: `${base}/token`, clientId: 'quarry-app', refreshToken: currentRefresh },
        imap: { host: dovecot.host, port: dovecot.port, secure: false },
      },
    ],
  });
  expect(result).toMatchObject({
    loaded: 0,
    refused: [{ email: 'other@pool.test', error: expect.stringMatching(/AUTHENTICATIONFAILED|Authentication failed/i) }],
  });
  expect(introspected.at(-1)).toBe(currentAccess);
});
