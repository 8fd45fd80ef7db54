import { createTestDatabase, createTestRedis, quarryEnv, type TestDatabase, type TestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

const secretKey = Buffer.alloc(32, 11);
let database: TestDatabase;
let redis: TestRedis;
const running: QuarryProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase('metrics_port');
  redis = createTestRedis('metrics_port');
});

afterAll(async () => {
  for (const quarry of running.splice(0)) {
    quarry.child.kill('SIGKILL');
    await quarry.exited;
  }
  await redis.cleanup();
  await database.drop();
});

describe('metrics on their own port', () => {
  it.each(['api', 'mining-worker'])('the %s role answers /metrics on METRICS_PORT only', async (role) => {
    const quarry = await startQuarry(role, { ...quarryEnv({ database, redis, secretKey }), MINING_BROWSER: 'off' });
    running.push(quarry);
    expect(quarry.metricsPort).toBeGreaterThan(0);
    expect(quarry.metricsPort).not.toBe(quarry.port);
    expect((await fetch(`http://127.0.0.1:${quarry.port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${quarry.port}/metrics`)).status).toBe(404);
    const metrics = await fetch(`http://127.0.0.1:${quarry.metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^quarry_queue_jobs\{queue="system",state="wait"\} \d+$/m);
    // The metrics listener serves nothing else.
    expect((await fetch(`http://127.0.0.1:${quarry.metricsPort}/healthz`)).status).toBe(404);
  });
});
