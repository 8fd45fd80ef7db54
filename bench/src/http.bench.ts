import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createClient } from '@quarry/auth';
import { createPool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv } from '@quarry/testing';
import { load, printTable, repoRoot, spawnServer, type LoadResult } from './harness.ts';

const quarryMain = `${repoRoot}apps/quarry/src/main.ts`;
const bareExpress = fileURLToPath(new URL('./bare-express.server.ts', import.meta.url));

/**
 * `npm run bench -- http`: our authenticated no-op (GET /v1/whoami, Basic) beside bare express in
 * the same run, same machine, same load. Target: ours keeps at least 60% of bare throughput.
 */
export async function benchHttp(options: { seconds: number; connections: number }): Promise<void> {
  const database = await createTestDatabase('bench_http');
  const redis = createTestRedis('bench-http');
  const secretKey = Buffer.alloc(32, 1);
  const db = createPool(database.url, 2);
  const client = await createClient({ db, secretKey }, { name: 'bench', scopes: ['recruitment'] });
  await db.end();
  const authorization = `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}`;
  const apiEnv = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info', // startup lines only (the port); nothing is logged per request
    ...quarryEnv({ database, redis, secretKey }),
  };
  // A real OTLP endpoint that accepts and drops spans, to price exporting traces too.
  const sink = createServer((request, response) => request.resume().on('end', () => response.end('{}')));
  sink.listen(0, '127.0.0.1');
  await new Promise((resolve) => sink.once('listening', resolve));

  const rows: Array<[string, LoadResult]> = [];
  const measure = async (label: string, script: string, args: string[], env: Record<string, string>, path: string, headers?: Record<string, string>) => {
    const server = await spawnServer(script, args, env);
    try {
      rows.push([label, await load(`http://127.0.0.1:${server.port}${path}`, { connections: options.connections, seconds: options.seconds, ...(headers ? { headers } : {}) })]);
    } finally {
      await server.stop();
    }
  };
  try {
    await measure('bare express GET /hello', bareExpress, [], {}, '/hello');
    await measure('quarry GET /v1/whoami (Basic), no tracing', quarryMain, ['start', '--role', 'api'], apiEnv, '/v1/whoami', { authorization });
    const traced = { ...apiEnv, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(sink.address() as AddressInfo).port}` };
    await measure('quarry, every trace exported', quarryMain, ['start', '--role', 'api'], traced, '/v1/whoami', { authorization });
    await measure('quarry, 10% of traces exported', quarryMain, ['start', '--role', 'api'], {
      ...traced,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    }, '/v1/whoami', { authorization });
  } finally {
    sink.close();
    await redis.cleanup();
    await database.drop();
  }
  const bare = rows[0]?.[1].requestsPerSecond ?? 1;
  printTable(
    `HTTP: ${options.connections} connections, ${options.seconds} s each (after 2 s warm-up)`,
    ['target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'vs bare'],
    rows.map(([label, result]) => [
      label,
      Math.round(result.requestsPerSecond),
      result.p50Ms,
      result.p99Ms,
      result.errors,
      result.non2xx,
      `${Math.round((result.requestsPerSecond / bare) * 100)}%`,
    ]),
  );
}
