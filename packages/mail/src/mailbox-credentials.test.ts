import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { sealedColumns, type SealedColumn } from '@quarry/keyring';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCredentials } from './mailbox-credentials.ts';
import { MailboxLoginRefused } from './mailbox-login.ts';

// The OAuth2 side of a pool account, against a real token endpoint on loopback: a refresh token is
// exchanged, a rotated one replaces it (sealed), a token still good is reused, a revoked grant is a
// refused login.

let server: Server;
let tokenUrl: string;
const requests: URLSearchParams[] = [];
// Identity "sealing" is enough here: what matters is what goes into the sealed fields, for which column.
const ports = {
  seal: (column: SealedColumn, _row: string, text: string) => Buffer.from(`sealed:${column.column}:${text}`),
  open: (column: SealedColumn, _row: string, sealed: Buffer) => sealed.toString().replace(`sealed:${column.column}:`, ''),
  now: () => new Date('2026-01-01T00:00:00Z'),
};
const email = 'pool@outlook.test';
const sealSecret = (text: string) => ports.seal(sealedColumns.mailboxSecret, email, text);
const sealToken = (text: string) => ports.seal(sealedColumns.mailboxAccessToken, email, text);

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const form = new URLSearchParams(body);
      requests.push(form);
      if (form.get('refresh_token') === 'revoked') {
        response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
        return;
      }
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: `access-for-${form.get('refresh_token')}`, expires_in: 3600, refresh_token: 'rotated' }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  tokenUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/token`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const sealedSecret = (refreshToken: string) =>
  sealSecret(JSON.stringify({ cookies: '', oauth2: { tokenUrl, clientId: 'app-id', refreshToken } }));

describe('resolveCredentials', () => {
  it('exchanges the refresh token and keeps the rotated one and the access token sealed', async () => {
    const { credentials, refreshed } = await resolveCredentials(ports, {
      email,
      sealedSecret: sealedSecret('first'),
      sealedAccessToken: null,
      accessTokenExpiresAt: null,
    });
    expect(credentials).toEqual({ accessToken: 'access-for-first' });
    expect(Object.fromEntries(requests.at(-1) ?? [])).toEqual({ grant_type: 'refresh_token', client_id: 'app-id', refresh_token: 'first' });
    expect(refreshed?.expiresAt).toEqual(new Date('2026-01-01T01:00:00Z'));
    expect(ports.open(sealedColumns.mailboxAccessToken, email, refreshed!.sealedAccessToken)).toBe('access-for-first');
    expect(JSON.parse(ports.open(sealedColumns.mailboxSecret, email, refreshed!.sealedSecret))).toMatchObject({
      oauth2: { refreshToken: 'rotated' },
    });
  });

  it('reuses an access token that is good for a while, and refreshes one about to expire', async () => {
    const count = requests.length;
    const good = await resolveCredentials(ports, {
      email,
      sealedSecret: sealedSecret('first'),
      sealedAccessToken: sealToken('still-good'),
      accessTokenExpiresAt: new Date('2026-01-01T00:30:00Z'),
    });
    expect(good).toEqual({ credentials: { accessToken: 'still-good' }, refreshed: null });
    expect(requests).toHaveLength(count);
    const late = await resolveCredentials(ports, {
      email,
      sealedSecret: sealedSecret('first'),
      sealedAccessToken: sealToken('nearly-gone'),
      accessTokenExpiresAt: new Date('2026-01-01T00:01:00Z'),
    });
    expect(late.credentials).toEqual({ accessToken: 'access-for-first' });
  });

  it('treats a revoked grant as a refused login, and a password account needs no endpoint', async () => {
    await expect(
      resolveCredentials(ports, { email, sealedSecret: sealedSecret('revoked'), sealedAccessToken: null, accessTokenExpiresAt: null }),
    ).rejects.toBeInstanceOf(MailboxLoginRefused);
    const password = await resolveCredentials(ports, {
      email,
      sealedSecret: sealSecret(JSON.stringify({ password: 'pw', cookies: '' })),
      sealedAccessToken: null,
      accessTokenExpiresAt: null,
    });
    expect(password).toEqual({ credentials: { password: 'pw' }, refreshed: null });
  });
});
