import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript, shellEnv, startScript } from './support/npm-scripts.ts';

// `npm start` with its own DATABASE_URL, then `npm run quarry -- clients create` in another shell
// without it: the client must land in the server's database.
let database: TestDatabase;
let other: TestDatabase;
let redis: TestRedis;
let folder: string;
let server: Awaited<ReturnType<typeof startScript>> | undefined;
let beside: Awaited<ReturnType<typeof startScript>> | undefined;

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
const where = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
};

beforeAll(async () => {
  database = await createTestDatabase('cli_config');
  other = await createTestDatabase('cli_config_other');
  redis = createTestRedis('cli_config');
  folder = mkdtempSync(join(tmpdir(), 'quarry-cli-config-'));
});

afterAll(async () => {
  await beside?.stop();
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
  await redis.cleanup();
  await other.drop();
  await database.drop();
});

describe('npm start and npm run quarry share one configuration', () => {
  it('a client created beside a server started with its own DATABASE_URL works on that server', async () => {
    const recorded = join(folder, 'quarry.json');
    server = await startScript(
      'start.sh',
      [],
      shellEnv({
        QUARRY_LOCAL_CONFIG: recorded,
        QUARRY_ROLE: 'api',
        DATABASE_URL: database.url,
        REDIS_URL: redis.url,
        QUEUE_PREFIX: redis.prefix,
        QUARRY_SECRET_KEY: Buffer.alloc(32, 21).toString('base64'),
        PORT: '0',
        METRICS_PORT: '0',
        HOST: '127.0.0.1',
      }),
    );
    // Another shell: none of the server's variables.
    const created = await runScript(
      'quarry.sh',
      ['clients', 'create', '--name', 'newcomer', '--scopes', 'admin'],
      shellEnv({ QUARRY_LOCAL_CONFIG: recorded }),
    );
    expect(created.code, created.stderr).toBe(0);
    const client = JSON.parse(created.stdout) as { secret: string };
    const whoami = await fetch(`http://127.0.0.1:${server.port}/v1/whoami`, { headers: { authorization: basic(client.secret) } });
    expect(whoami.status).toBe(200);
    expect(created.stderr).toContain(`database ${where(database.url)}`);
    // The recorded settings hold the secret key: readable by the owner only.
    expect(statSync(recorded).mode & 0o077).toBe(0);

    // A variable set explicitly still wins over the recorded one, and the CLI says so.
    const elsewhere = await runScript(
      'quarry.sh',
      ['clients', 'list'],
      shellEnv({ QUARRY_LOCAL_CONFIG: recorded, DATABASE_URL: other.url }),
    );
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(elsewhere.stderr).toContain(`database ${where(other.url)}`);
    expect(JSON.parse(elsewhere.stdout)).toEqual([]);
  });

  it('npm run quarry -- start --role … beside it runs with its settings, and leaves them as they were', async () => {
    const recorded = join(folder, 'quarry.json');
    const before = readFileSync(recorded, 'utf8');
    expect(server).toBeDefined();
    // Another shell again: no DATABASE_URL, no secret key; the recorded ones are used.
    beside = await startScript('quarry.sh', ['start', '--role', 'api'], shellEnv({ QUARRY_LOCAL_CONFIG: recorded }));
    expect(beside.output()).toContain(`database ${where(database.url)}`);
    const created = await runScript(
      'quarry.sh',
      ['clients', 'create', '--name', 'second', '--scopes', 'admin'],
      shellEnv({ QUARRY_LOCAL_CONFIG: recorded }),
    );
    const client = JSON.parse(created.stdout) as { secret: string };
    // Both APIs know the client: one database and one secret key.
    for (const port of [server?.port, beside.port]) {
      expect((await fetch(`http://127.0.0.1:${port}/v1/whoami`, { headers: { authorization: basic(client.secret) } })).status).toBe(200);
    }
    expect(readFileSync(recorded, 'utf8')).toBe(before);
  });
});
