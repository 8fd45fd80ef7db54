import { createServer, type Server } from 'node:net';
import { loadConfig } from '@quarry/config';
import { createPool } from '@quarry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenerSettingsOf } from '../apps/quarry/src/port-check.ts';
import { runScript, shellEnv } from './support/npm-scripts.ts';
import { runQuarry } from './support/quarry-process.ts';

// A start whose port another process holds stops at once, naming the setting that chooses the
// port, before the slow steps: installs, services, migrations, the demo's sites, Chromium.
const held: Server[] = [];

async function holdPort(host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  held.push(server);
  return (server.address() as { port: number }).port;
}

async function databaseExists(name: string): Promise<boolean> {
  const pool = createPool('postgres://postgres@127.0.0.1:5432/postgres', 1);
  try {
    return (await pool.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await pool.end();
  }
}

let metricsPort: number;
let demoPort: number;
let smtpPort: number;

beforeAll(async () => {
  metricsPort = await holdPort('127.0.0.1');
  smtpPort = await holdPort('127.0.0.1');
  demoPort = await holdPort('127.0.0.77');
});
afterAll(async () => {
  await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('a port another process holds', () => {
  it('quarry start names METRICS_PORT and SMTP_PORT and stops before migrating', async () => {
    const database = `quarry_ports_${process.pid}`;
    const started = performance.now();
    const result = await runQuarry(['start', '--role', 'all'], {
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
      QUARRY_SECRET_KEY: Buffer.alloc(32, 3).toString('base64'),
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: String(metricsPort),
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtpPort),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `quarry: METRICS_PORT=${metricsPort} (on HOST=127.0.0.1) is in use by another process: stop it, or set METRICS_PORT to a free port`,
    );
    expect(result.stderr).toContain(`quarry: SMTP_PORT=${smtpPort} (on SMTP_HOST=127.0.0.1) is in use by another process`);
    expect(result.stderr).not.toContain('EADDRINUSE');
    // Well before the slow steps would have run (the newcomer waited 94 s), even on a loaded machine.
    expect(performance.now() - started).toBeLessThan(30_000);
    // Migrations create the database: it was never reached.
    expect(await databaseExists(database)).toBe(false);
  });

  it('npm run demo names DEMO_PORT before installs and services', async () => {
    const result = await runScript(
      'start.sh',
      ['--demo'],
      shellEnv({
        // A database that does not answer: had the services' check run, it would say so.
        DATABASE_URL: 'postgres://postgres@192.0.2.1:5432/quarry',
        HOST: '127.0.0.1',
        PORT: '0',
        METRICS_PORT: '0',
        SMTP_PORT: '0',
        DEMO_PORT: String(demoPort),
        DEMO_SMTP_PORT: '0',
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `quarry: DEMO_PORT=${demoPort} (on DEMO_HOST=127.0.0.77) is in use by another process: stop it, or set DEMO_PORT to a free port`,
    );
    expect(result.stderr).not.toContain('does not answer');
  });

  it('the early check reads the same defaults as the configuration', () => {
    const config = loadConfig({ QUARRY_SECRET_KEY: Buffer.alloc(32, 3).toString('base64') }, 'all');
    expect(listenerSettingsOf({}, 'all', true)).toEqual({
      host: config.host,
      port: config.port,
      metricsPort: config.metricsPort,
      smtp: { host: config.smtp.host, port: config.smtpPort, reusePort: config.smtp.reusePort },
      demo: config.demo,
    });
  });
});
