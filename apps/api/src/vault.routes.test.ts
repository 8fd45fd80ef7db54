import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, type JobQueues } from '@quarry/jobs';
import { createLogger, type Logger } from '@quarry/observability';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import { createCardVault, type CardVaultService } from '@quarry/vault';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from './app.ts';
import { startEdgeApp } from './test-support/edge-app.ts';

const secretKey = Buffer.alloc(32, 9);
const vaultKey = Buffer.alloc(32, 10);
const pan = '4000 0566 5566 5556';
const panDigits = '4000056655665556';
const holder = 'Grace Hopper';
const cvv = '9173';
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;
let queues: JobQueues;
let vault: CardVaultService;
const apps: Array<{ close(): Promise<void> }> = [];
const logChunks: string[] = [];
let base: string;
let booker: { clientId: string; secret: string };
let other: { clientId: string; secret: string };
let recruiter: { clientId: string; secret: string };

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
const post = (at: string, path: string, as: { secret: string } | null, payload?: unknown) =>
  fetch(`${at}${path}`, {
    method: 'POST',
    headers: {
      ...(as ? { authorization: basic(as.secret) } : {}),
      ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
  });
const card = (otp: string, extra: Record<string, unknown> = {}) => ({
  otp,
  pan,
  expiryMonth: 11,
  expiryYear: 2034,
  name: holder,
  cvv,
  ...extra,
});
const logs = () => logChunks.join('');
/** Every error body the test received, for the final search for card data. */
const bodies: string[] = [];
async function bodyOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  bodies.push(text);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The API with this vault behind its vault routes (none: VAULT_KEY unset), logging to `logger`. */
async function startApp(logger: Logger, vaultPort: ApiDeps['vault']): Promise<string> {
  const app = await startEdgeApp({ db, queues, secretKey, logger, ...(vaultPort ? { vaultRoutes: vaultPort } : {}) });
  apps.push(app);
  return app.base;
}

beforeAll(async () => {
  database = await createTestDatabase('api-vault');
  testRedis = createTestRedis('api-vault');
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  booker = await createClient({ db, secretKey }, { name: 'booker', scopes: ['booking'] });
  other = await createClient({ db, secretKey }, { name: 'other booker', scopes: ['booking'] });
  recruiter = await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment'] });
  // Everything the API and the vault log, at every level, kept for the search for card data.
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      logChunks.push(chunk.toString());
      callback();
    },
  });
  const logger = createLogger({ level: 'trace', name: 'vault-test', destination });
  vault = createCardVault({ db, redis, vaultKey, prefix: testRedis.prefix, logger });
  base = await startApp(logger, vault);
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await queues.close();
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

describe('POST /vault/otp and POST /vault/pan', () => {
  const tokens: string[] = [];

  it('needs a credential with the booking scope', async () => {
    const anonymous = await post(base, '/vault/otp', null);
    expect(anonymous.status).toBe(401);
    expect(await bodyOf(anonymous)).toMatchObject({ object: 'error', name: 'AuthenticationRequired' });
    const wrongScope = await post(base, '/vault/otp', recruiter);
    expect(wrongScope.status).toBe(403);
    expect(await bodyOf(wrongScope)).toMatchObject({ object: 'error', name: 'Forbidden' });
  });

  it('issues an OTP, stores a card with it and answers a v2 token; the card opens for its client with the CVV until an order spends it', async () => {
    const otpResponse = await post(base, '/vault/otp', booker);
    expect(otpResponse.status).toBe(200);
    expect(otpResponse.headers.get('cache-control')).toBe('no-store');
    const otp = (await otpResponse.json()) as { id: string; object: string; expiresAt: string };
    expect(otp).toEqual({ id: expect.any(String), object: 'otp', expiresAt: expect.any(String) });
    expect(Date.parse(otp.expiresAt) - Date.now()).toBeGreaterThan(59 * 60_000);

    const stored = await post(base, '/vault/pan', booker, card(otp.id));
    expect(stored.status).toBe(200);
    const { panToken } = (await stored.json()) as { panToken: string };
    expect(panToken).toMatch(/^v2:[A-Za-z0-9_-]{296}$/);
    tokens.push(panToken);
    expect(await vault.openCard(panToken, { bookingId: 'bk_1', clientId: booker.clientId })).toEqual({
      pan: panDigits,
      expiryMonth: 11,
      expiryYear: 2034,
      name: holder,
      cvv,
    });
    await vault.spendCvv(panToken, { clientId: booker.clientId });
    await expect(vault.openCard(panToken, { bookingId: 'bk_1', clientId: booker.clientId })).rejects.toThrow('CVV');
    await expect(vault.openCard(panToken, { bookingId: 'bk_2', clientId: other.clientId })).rejects.toThrow('panToken is not usable');
  });

  it('answers a v1 token of 164 characters on request, accepted where a token is', async () => {
    const otp = (await (await post(base, '/vault/otp', booker)).json()) as { id: string };
    const { panToken } = (await (await post(base, '/vault/pan', booker, card(otp.id, { tokenVersion: 'v1' }))).json()) as {
      panToken: string;
    };
    expect(panToken).toHaveLength(164);
    tokens.push(panToken);
    expect(vault.isPanTokenShaped(panToken)).toBe(true);
    expect((await vault.openCard(panToken, { bookingId: 'bk_3', clientId: booker.clientId })).pan).toBe(panDigits);
  });

  it('refuses a bad card with 400 naming each field, in the error body of the booking surface', async () => {
    const otp = (await (await post(base, '/vault/otp', booker)).json()) as { id: string };
    const response = await post(base, '/vault/pan', booker, card(otp.id, { pan: '4000 0566 5566 5557', expiryMonth: 0, name: '' }));
    expect(response.status).toBe(400);
    const body = await bodyOf(response);
    expect(body).toMatchObject({ object: 'error', name: 'RequestParametersValidationError' });
    const messages = (body.details as { messages: string[] }).messages;
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^pan: is not a card number/),
        expect.stringMatching(/^expiryMonth: /),
        expect.stringMatching(/^name: is required/),
      ]),
    );
    // The refusal left the OTP unspent.
    expect((await post(base, '/vault/pan', booker, card(otp.id))).status).toBe(200);
  });

  it('refuses a used OTP and another client’s OTP with 400 naming otp', async () => {
    const otp = (await (await post(base, '/vault/otp', booker)).json()) as { id: string };
    expect((await post(base, '/vault/pan', booker, card(otp.id))).status).toBe(200);
    const reused = await post(base, '/vault/pan', booker, card(otp.id));
    expect(reused.status).toBe(400);
    expect(await bodyOf(reused)).toMatchObject({
      name: 'RequestParametersValidationError',
      details: { messages: ['otp: already used (each OTP stores one card)'] },
    });
    const theirs = (await (await post(base, '/vault/otp', other)).json()) as { id: string };
    const stolen = await post(base, '/vault/pan', booker, card(theirs.id));
    expect(stolen.status).toBe(400);
    expect(await bodyOf(stolen)).toMatchObject({ details: { messages: ['otp: unknown (ask POST /vault/otp for one)'] } });
    // A card number sent where the OTP goes is not quoted back.
    const misplaced = await post(base, '/vault/pan', booker, card(pan));
    expect(await bodyOf(misplaced)).toMatchObject({ details: { messages: ['otp: unknown (ask POST /vault/otp for one)'] } });
  });

  it('answers 503 VaultNotConfigured on a deployment without VAULT_KEY', async () => {
    const unconfigured = await startApp(createLogger({ level: 'silent' }), undefined);
    const response = await post(unconfigured, '/vault/otp', booker);
    expect(response.status).toBe(503);
    expect(await bodyOf(response)).toMatchObject({ object: 'error', name: 'VaultNotConfigured' });
  });

  it('masks a card number or token that reaches an error body or the log through any error', async () => {
    const [token] = tokens;
    const leaky: ApiDeps['vault'] = {
      issueOtp: async () => {
        throw new (await import('@quarry/contracts')).AppError('RequestParametersValidationError', `card ${pan} refused`, {
          messages: [`pan: ${panDigits} refused`],
          token,
        });
      },
      storePan: async () => {
        throw new Error(`gateway failed for ${panDigits} with ${token}`);
      },
    };
    const logger = createLogger({
      level: 'trace',
      destination: new Writable({ write: (chunk: Buffer, _encoding, callback) => (logChunks.push(chunk.toString()), callback()) }),
    });
    const at = await startApp(logger, leaky);
    const refused = await bodyOf(await post(at, '/vault/otp', booker));
    expect(refused).toEqual({
      object: 'error',
      name: 'RequestParametersValidationError',
      message: 'card [Redacted] refused',
      details: { messages: ['pan: [Redacted] refused'], token: '[Redacted]' },
    });
    const failed = await post(at, '/vault/pan', booker, card('otp_x'));
    expect(failed.status).toBe(500);
    expect(await bodyOf(failed)).toMatchObject({ name: 'InternalError' });
    expect(logs()).toContain('gateway failed for [Redacted] with [Redacted]');
  });

  it('leaves no card number, name, CVV or token in clear in the logs, the error bodies, a dump of the database or Redis', async () => {
    expect(tokens).toHaveLength(2);
    expect(logs()).toContain('vault: card stored');
    const { stdout: dump } = await promisify(execFile)('pg_dump', ['--data-only', '--no-owner', database.url], {
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(dump).toContain('vault_cards');
    const keys = await redis.keys(`${testRedis.prefix}:*`);
    const redisValues = (
      await Promise.all(keys.map(async (key) => ((await redis.type(key)) === 'string' ? ((await redis.get(key)) ?? '') : '')))
    ).join('\n');
    const places = { logs: logs(), 'error bodies': bodies.join('\n'), pg_dump: dump, redis: `${keys.join('\n')}\n${redisValues}` };
    const secrets = [
      panDigits,
      pan,
      panDigits.slice(0, 12),
      Buffer.from(panDigits).toString('hex'),
      holder,
      Buffer.from(holder).toString('hex'),
      ...tokens.flatMap((token) => [token, token.replace(/^v2:/, '').slice(30, 90)]),
    ];
    for (const [place, text] of Object.entries(places)) {
      for (const secret of secrets) expect(text.includes(secret), `${place} contains ${secret.slice(0, 6)}…`).toBe(false);
    }
    expect(places.redis).not.toContain(cvv);
    expect(places.logs).not.toMatch(/"cvv":"\d/);
  });
});
