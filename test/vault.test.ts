import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver } from './support/otlp-receiver.ts';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

// The vault in a real `api` process: VAULT_KEY read from the environment, the routes wired by the
// role, and card data kept out of what the process writes (stdout) and exports (OTLP traces).
const secretKey = Buffer.alloc(32, 9);
const vaultKey = Buffer.alloc(32, 12);
const panDigits = '5555555555554444';
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let api: QuarryProcess;
let booker: { clientId: string; secret: string };

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
const call = (path: string, payload?: unknown) =>
  fetch(`http://127.0.0.1:${api.port}${path}`, {
    method: 'POST',
    headers: { authorization: basic(booker.secret), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
  });

beforeAll(async () => {
  database = await createTestDatabase('vault-process');
  redis = createTestRedis('vault-process');
  db = createPool(database.url, 2);
  booker = await createClient({ db, secretKey }, { name: 'booker', scopes: ['booking'] });
  receiver = await startOtlpReceiver();
  api = await startQuarry('api', {
    ...quarryEnv({ database, redis, secretKey }),
    VAULT_KEY: vaultKey.toString('base64'),
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '200',
    LOG_LEVEL: 'debug',
  });
});

afterAll(async () => {
  api.child.kill('SIGKILL');
  await api.exited;
  await receiver.close();
  await db.end();
  await redis.cleanup();
  await database.drop();
});

describe('the vault in the api role', () => {
  it('stores a card for a token, and no card number or token reaches the output or the exported traces', async () => {
    const otp = (await (await call('/vault/otp')).json()) as { id: string };
    const stored = await call('/vault/pan', {
      otp: otp.id,
      pan: '5555 5555 5555 4444',
      expiryMonth: 1,
      expiryYear: 2040,
      name: 'Katherine Johnson',
      cvv: '321',
    });
    expect(stored.status).toBe(200);
    const { panToken } = (await stored.json()) as { panToken: string };
    expect(panToken).toHaveLength(299);
    // A client that puts card data in a URL: the path is a span attribute and the span's name.
    expect((await call(`/vault/pan/${panDigits}`)).status).toBe(404);
    expect((await call(`/vault/pan/${panToken}`)).status).toBe(404);

    const served = () => receiver.spans.filter((span) => span.kind === 2 && span.scope === '@quarry/api');
    await waitFor('the four server spans exported', () => served().length >= 4);
    const exported = receiver.bodies.join('\n');
    expect(exported).toContain('/vault/pan/[Redacted]');
    for (const secret of [panDigits, panToken, panToken.slice(3, 60), 'Katherine Johnson']) {
      expect(exported.includes(secret), `traces contain ${secret.slice(0, 6)}…`).toBe(false);
      expect(api.output().includes(secret), `output contains ${secret.slice(0, 6)}…`).toBe(false);
    }
    expect(api.output()).toContain('vault: card stored');
  });
});
