import { createSealer, sealedColumns } from '@quarry/keyring';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, type AuthenticatorOptions } from './authenticator.ts';
import { createClient, listClients, revokeClient } from './client-admin.ts';
import { hashSecret } from './secret-crypto.ts';

const secretKey = Buffer.alloc(32, 9);
let database: TestDatabase;
let db: Pool;
let jwksServer: Server;
let jwksUrl: string;
let jwksRequests = 0;

type Created = { clientId: string; secret: string; jwtSecret: string };
let ops: Created;

type KeyPair = { publicKey: CryptoKey; privateKey: CryptoKey };
let rsa: KeyPair;
let ec: KeyPair;
let strangerRsa: KeyPair;

const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const inSeconds = (seconds: number) => Math.floor(Date.now() / 1000) + seconds;

function hs256(subject: string, jwtSecret: string, claims: { exp?: number } = { exp: inSeconds(300) }): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(subject).setIssuedAt();
  if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp);
  return jwt.sign(new TextEncoder().encode(jwtSecret));
}

function signed(
  alg: 'RS256' | 'ES256',
  kid: string,
  key: CryptoKey,
  subject: string,
  extra: { issuer?: string; audience?: string } = {},
): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg, kid }).setSubject(subject).setIssuedAt().setExpirationTime(inSeconds(300));
  if (extra.issuer) jwt.setIssuer(extra.issuer);
  if (extra.audience) jwt.setAudience(extra.audience);
  return jwt.sign(key);
}

function authenticator(options: Partial<AuthenticatorOptions> = {}) {
  return createAuthenticator({ db, secretKey, cacheMs: 0, ...options });
}

async function freshClient(name: string): Promise<Created> {
  return createClient({ db, secretKey }, { name, scopes: ['recruitment'] });
}

beforeAll(async () => {
  database = await createTestDatabase('auth');
  db = createPool(database.url, 4);
  ops = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin', 'recruitment', 'admin'] });

  rsa = await generateKeyPair('RS256');
  ec = await generateKeyPair('ES256');
  strangerRsa = await generateKeyPair('RS256');
  const keys: JWK[] = [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
  ];
  jwksServer = createServer((request, response) => {
    jwksRequests += 1;
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
});

afterAll(async () => {
  await new Promise((resolve) => jwksServer.close(resolve));
  await db.end();
  await database.drop();
});

describe('Basic credentials', () => {
  it('accepts the secret as user name and returns the client', async () => {
    expect(await authenticator().authenticate(basic(ops.secret))).toEqual({
      clientId: ops.clientId,
      name: 'ops',
      scopes: ['admin', 'recruitment'],
    });
  });

  it('accepts the secret with any password and a lower-case scheme', async () => {
    expect((await authenticator().authenticate(basic(ops.secret, 'ignored')))?.clientId).toBe(ops.clientId);
    expect((await authenticator().authenticate(`basic ${Buffer.from(ops.secret).toString('base64')}`))?.clientId).toBe(ops.clientId);
  });

  it.each([
    ['a wrong secret', () => basic(`${ops.secret}x`)],
    ['an empty secret', () => basic('')],
    ['an empty secret with a password', () => basic('', ops.secret)],
    ['the secret in the password part', () => `Basic ${Buffer.from(`:${ops.secret}`).toString('base64')}`],
    ['no credential after the scheme', () => 'Basic'],
    ['an unknown scheme', () => `Token ${ops.secret}`],
    ['the bare secret', () => ops.secret],
    ['an empty header', () => ''],
  ])('rejects %s', async (_label, header) => {
    expect(await authenticator().authenticate(header())).toBeNull();
  });

  it('rejects a missing header', async () => {
    expect(await authenticator().authenticate(undefined)).toBeNull();
  });

  it('rejects the secret of a revoked client', async () => {
    const client = await freshClient('to revoke');
    const auth = authenticator();
    expect((await auth.authenticate(basic(client.secret)))?.clientId).toBe(client.clientId);
    expect(await revokeClient({ db }, client.clientId)).toBe(true);
    expect(await auth.authenticate(basic(client.secret))).toBeNull();
    expect(await revokeClient({ db }, client.clientId)).toBe(false);
  });
});

describe('credential cache', () => {
  it("keeps honouring a revoked client's credential until the cache TTL passes, then stops", async () => {
    const client = await freshClient('cached');
    let clock = 1_000_000;
    const auth = authenticator({ cacheMs: 60_000, now: () => clock });
    expect((await auth.authenticate(basic(client.secret)))?.clientId).toBe(client.clientId);
    await revokeClient({ db }, client.clientId);

    clock += 59_999;
    expect((await auth.authenticate(basic(client.secret)))?.clientId).toBe(client.clientId);
    clock += 1;
    expect(await auth.authenticate(basic(client.secret))).toBeNull();
    // Once dropped from the cache, a credential is not resurrected.
    clock -= 30_000;
    expect(await auth.authenticate(basic(client.secret))).toBeNull();
  });

  it('does not cache when cacheMs is 0', async () => {
    const client = await freshClient('uncached');
    const auth = authenticator({ cacheMs: 0, now: () => 5 });
    expect((await auth.authenticate(basic(client.secret)))?.clientId).toBe(client.clientId);
    await revokeClient({ db }, client.clientId);
    expect(await auth.authenticate(basic(client.secret))).toBeNull();
  });

  it('does not cache a rejected credential', async () => {
    const client = await freshClient('late secret');
    let clock = 0;
    const auth = authenticator({ cacheMs: 60_000, now: () => clock });
    expect(await auth.authenticate(basic(`${client.secret}x`))).toBeNull();
    clock += 1;
    expect((await auth.authenticate(basic(client.secret)))?.clientId).toBe(client.clientId);
  });

  it('never honours a cached JWT past its own exp', async () => {
    const client = await freshClient('cached jwt');
    const exp = inSeconds(30);
    const token = await hs256(client.clientId, client.jwtSecret, { exp });
    let clock = Date.now();
    const auth = authenticator({ cacheMs: 60_000, now: () => clock });
    expect((await auth.authenticate(`Bearer ${token}`))?.clientId).toBe(client.clientId);
    // Revoked: from now on only the cache can answer for this token.
    await revokeClient({ db }, client.clientId);

    clock = exp * 1000 - 1;
    expect((await auth.authenticate(`Bearer ${token}`))?.clientId).toBe(client.clientId);
    // Well within cacheMs of the first use, but past the token's exp.
    clock = exp * 1000;
    expect(clock).toBeLessThan(Date.now() + 60_000);
    expect(await auth.authenticate(`Bearer ${token}`)).toBeNull();
  });
});

describe('HS256 bearer tokens', () => {
  it('accepts a token signed with the client JWT secret', async () => {
    const token = await hs256(ops.clientId, ops.jwtSecret);
    expect(await authenticator().authenticate(`Bearer ${token}`)).toEqual({
      clientId: ops.clientId,
      name: 'ops',
      scopes: ['admin', 'recruitment'],
    });
  });

  it('rejects a token signed with another key', async () => {
    const other = await freshClient('other key');
    expect(await authenticator().authenticate(`Bearer ${await hs256(ops.clientId, other.jwtSecret)}`)).toBeNull();
    expect(await authenticator().authenticate(`Bearer ${await hs256(ops.clientId, 'qj_guessed')}`)).toBeNull();
  });

  it('rejects a token without exp', async () => {
    const token = await hs256(ops.clientId, ops.jwtSecret, {});
    expect(JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString())).not.toHaveProperty('exp');
    expect(await authenticator().authenticate(`Bearer ${token}`)).toBeNull();
  });

  it('rejects an expired token', async () => {
    const token = await hs256(ops.clientId, ops.jwtSecret, { exp: inSeconds(-120) });
    expect(await authenticator().authenticate(`Bearer ${token}`)).toBeNull();
  });

  it('rejects a token without a subject, or with an unknown one', async () => {
    const noSubject = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(inSeconds(300))
      .sign(new TextEncoder().encode(ops.jwtSecret));
    expect(await authenticator().authenticate(`Bearer ${noSubject}`)).toBeNull();
    expect(await authenticator().authenticate(`Bearer ${await hs256('cl_aaaaaaaaaaaaaaaaaaaa', ops.jwtSecret)}`)).toBeNull();
  });

  it('rejects a token of a revoked client', async () => {
    const client = await freshClient('revoked jwt');
    const token = await hs256(client.clientId, client.jwtSecret);
    expect((await authenticator().authenticate(`Bearer ${token}`))?.clientId).toBe(client.clientId);
    await revokeClient({ db }, client.clientId);
    expect(await authenticator().authenticate(`Bearer ${token}`)).toBeNull();
  });

  it.each([
    ['alg none', { alg: 'none' }, ''],
    ['alg HS256 without a signature', { alg: 'HS256' }, ''],
    ['alg HS256 with a forged signature', { alg: 'HS256' }, 'c2lnbmF0dXJl'],
  ])('rejects an unsigned or forged token (%s)', async (_label, header, signature) => {
    const token = `${base64url({ ...header, typ: 'JWT' })}.${base64url({ sub: ops.clientId, exp: inSeconds(300) })}.${signature}`;
    expect(await authenticator().authenticate(`Bearer ${token}`)).toBeNull();
  });

  it('rejects garbage that is not a JWT', async () => {
    expect(await authenticator().authenticate('Bearer not.a.jwt')).toBeNull();
    expect(await authenticator().authenticate('Bearer abc')).toBeNull();
  });

  it('rejects a token the client signed with HS512 instead of HS256', async () => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject(ops.clientId)
      .setExpirationTime(inSeconds(300))
      .sign(new TextEncoder().encode(ops.jwtSecret));
    expect(await authenticator().authenticate(`Bearer ${token}`)).toBeNull();
  });
});

describe('RS256 and ES256 bearer tokens against a JWKS', () => {
  const withJwks = (extra: { issuer?: string; audience?: string } = {}) => authenticator({ jwks: { url: jwksUrl, ...extra } });

  it('accepts an RS256 token signed by a key of the JWKS', async () => {
    const before = jwksRequests;
    const token = await signed('RS256', 'rsa-1', rsa.privateKey, ops.clientId);
    expect(await withJwks().authenticate(`Bearer ${token}`)).toEqual({
      clientId: ops.clientId,
      name: 'ops',
      scopes: ['admin', 'recruitment'],
    });
    expect(jwksRequests).toBeGreaterThan(before);
  });

  it('accepts an ES256 token signed by a key of the JWKS', async () => {
    const token = await signed('ES256', 'ec-1', ec.privateKey, ops.clientId);
    expect((await withJwks().authenticate(`Bearer ${token}`))?.clientId).toBe(ops.clientId);
  });

  it('rejects a token signed by a key that is not in the JWKS', async () => {
    const unknownKid = await signed('RS256', 'rsa-stranger', strangerRsa.privateKey, ops.clientId);
    expect(await withJwks().authenticate(`Bearer ${unknownKid}`)).toBeNull();
    // Same kid as a published key, but signed by another key.
    const stolenKid = await signed('RS256', 'rsa-1', strangerRsa.privateKey, ops.clientId);
    expect(await withJwks().authenticate(`Bearer ${stolenKid}`)).toBeNull();
  });

  it('rejects an RS256 token when no JWKS is configured', async () => {
    const token = await signed('RS256', 'rsa-1', rsa.privateKey, ops.clientId);
    expect(await authenticator().authenticate(`Bearer ${token}`)).toBeNull();
  });

  it('rejects an RS256 token whose subject is a revoked client', async () => {
    const client = await freshClient('revoked rs256');
    const token = await signed('RS256', 'rsa-1', rsa.privateKey, client.clientId);
    expect((await withJwks().authenticate(`Bearer ${token}`))?.clientId).toBe(client.clientId);
    await revokeClient({ db }, client.clientId);
    expect(await withJwks().authenticate(`Bearer ${token}`)).toBeNull();
  });

  it('enforces the configured issuer and audience', async () => {
    const auth = withJwks({ issuer: 'https://idp.example', audience: 'quarry' });
    const good = await signed('RS256', 'rsa-1', rsa.privateKey, ops.clientId, { issuer: 'https://idp.example', audience: 'quarry' });
    expect((await auth.authenticate(`Bearer ${good}`))?.clientId).toBe(ops.clientId);
    const wrongIssuer = await signed('RS256', 'rsa-1', rsa.privateKey, ops.clientId, {
      issuer: 'https://evil.example',
      audience: 'quarry',
    });
    expect(await auth.authenticate(`Bearer ${wrongIssuer}`)).toBeNull();
    const wrongAudience = await signed('ES256', 'ec-1', ec.privateKey, ops.clientId, { issuer: 'https://idp.example', audience: 'other' });
    expect(await auth.authenticate(`Bearer ${wrongAudience}`)).toBeNull();
  });

  it('still verifies HS256 tokens with the client secret when a JWKS is configured', async () => {
    expect((await withJwks().authenticate(`Bearer ${await hs256(ops.clientId, ops.jwtSecret)}`))?.clientId).toBe(ops.clientId);
  });
});

describe('createClient', () => {
  async function validationFailure(input: unknown): Promise<AppError> {
    try {
      await createClient({ db, secretKey }, input);
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    throw new Error('createClient accepted invalid input');
  }

  it('rejects an unknown scope, naming the field', async () => {
    const error = await validationFailure({ name: 'x', scopes: ['recruitment', 'root'] });
    expect(error.code).toBe('RequestParametersValidationError');
    expect(error.details.messages).toHaveLength(1);
    expect(error.details.messages?.[0]).toMatch(/^scopes\.1: /);
  });

  it.each([
    ['an empty name', ''],
    ['a blank name', '   '],
  ])('rejects %s, naming the field', async (_label, name) => {
    const error = await validationFailure({ name, scopes: ['hotels'] });
    expect(error.code).toBe('RequestParametersValidationError');
    expect(error.details.messages).toEqual([expect.stringMatching(/^name: /)]);
  });

  it('rejects empty scopes and names every bad field at once', async () => {
    const error = await validationFailure({ name: '', scopes: [] });
    expect(error.code).toBe('RequestParametersValidationError');
    const fields = (error.details.messages ?? []).map((message) => message.split(':')[0]);
    expect(fields.sort()).toEqual(['name', 'scopes']);
  });

  it('stores no client when the input is invalid', async () => {
    const before = (await listClients({ db })).length;
    await validationFailure({ name: 'never stored', scopes: ['nope'] });
    const after = await listClients({ db });
    expect(after).toHaveLength(before);
    expect(after.map((client) => client.name)).not.toContain('never stored');
  });

  it('returns a client id and two distinct secrets, and stores the name and de-duplicated scopes', async () => {
    expect(ops.clientId).toMatch(/^cl_[a-z0-9]{20}$/);
    expect(ops.secret).toMatch(/^qs_/);
    expect(ops.jwtSecret).toMatch(/^qj_/);
    expect(ops.secret).not.toBe(ops.jwtSecret);
    const listed = (await listClients({ db })).find((client) => client.clientId === ops.clientId);
    expect(listed).toMatchObject({ name: 'ops', scopes: ['admin', 'recruitment'], revokedAt: null });
  });

  it('stores neither the secret nor the JWT secret in clear', async () => {
    const client = await createClient({ db, secretKey }, { name: 'clear check', scopes: ['booking'] });
    const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM clients WHERE client_id = $1', [client.clientId]);
    const row = rows[0];
    expect(row).toBeDefined();
    if (!row) return;
    const secretHash = row.secret_hash as Buffer;
    const ciphertext = row.jwt_secret_ciphertext as Buffer;
    for (const value of Object.values(row)) {
      const bytes = Buffer.isBuffer(value) ? value : Buffer.from(String(value));
      for (const secret of [client.secret, client.jwtSecret]) {
        expect(bytes.includes(Buffer.from(secret))).toBe(false);
        expect(bytes.toString('utf8')).not.toContain(secret);
        expect(bytes.toString('base64')).not.toContain(Buffer.from(secret).toString('base64'));
      }
    }
    // What is stored is a keyed hash and a ciphertext that only the key opens.
    expect(secretHash.equals(hashSecret(secretKey, client.secret))).toBe(true);
    expect(createSealer(secretKey).open(sealedColumns.clientJwtSecret, client.clientId, ciphertext)).toBe(client.jwtSecret);
    expect(() => createSealer(Buffer.alloc(32, 1)).open(sealedColumns.clientJwtSecret, client.clientId, ciphertext)).toThrow();
    expect(() => createSealer(secretKey).open(sealedColumns.clientJwtSecret, 'cl_another', ciphertext)).toThrow();
  });
});
