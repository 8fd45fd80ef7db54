import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createClient } from '@quarry/auth';
import { createPool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv } from '@quarry/testing';
import { load, printTable, repoRoot, spawnServer, type LoadResult, type Server } from './harness.ts';
import { procStatFields } from './proc-stat.ts';

const quarryMain = `${repoRoot}apps/quarry/src/main.ts`;
const bareExpress = fileURLToPath(new URL('./bare-express.server.ts', import.meta.url));
/** What every server span of the measured route is named, as it appears in an OTLP body (JSON or protobuf). */
const spanName = Buffer.from('GET /v1/whoami');

/** A real OTLP endpoint that accepts spans and counts those of the measured route: is every request traced? */
async function startSpanSink(): Promise<{ url: string; spans: () => number; close: () => void }> {
  let spans = 0;
  const sink: HttpServer = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      for (let at = body.indexOf(spanName); at !== -1; at = body.indexOf(spanName, at + spanName.length)) spans += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  sink.listen(0, '127.0.0.1');
  await new Promise((resolve) => sink.once('listening', resolve));
  return { url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`, spans: () => spans, close: () => sink.close() };
}

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
function cpuSeconds(pid: number): number {
  const fields = procStatFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / 100 : 0;
}

type Target = {
  label: string;
  server: Server;
  path: string;
  headers: Record<string, string>;
  sink?: Awaited<ReturnType<typeof startSpanSink>>;
};
type Round = { result: LoadResult; cpuMsPerRequest: number };

/**
 * `npm run bench -- http [--runs 3]`: our authenticated no-op (GET /v1/whoami, Basic) beside bare
 * express, untraced, every trace exported over OTLP, and 10% sampled. Every server runs for the
 * whole bench and the runs take turns (bare, untraced, traced, sampled; then again), so each
 * run's ratio is to the floor measured just before it, on a machine whose load moves minute to
 * minute; the median ratio of the runs is reported. Each traced server's spans are counted at a
 * real OTLP endpoint after it stopped: "every request traced" is checked, not assumed.
 * Target: ours keeps at least 60% of bare throughput, traced or not.
 */
export async function benchHttp(options: { seconds: number; connections: number; runs: number }): Promise<void> {
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
  const everySink = await startSpanSink();
  const sampledSink = await startSpanSink();
  const targets: Target[] = [];
  const requests = new Map<Target, number>();
  const rounds = new Map<Target, Round[]>();
  try {
    targets.push({ label: 'bare express GET /hello', server: await spawnServer(bareExpress, [], {}), path: '/hello', headers: {} });
    targets.push({
      label: 'quarry GET /v1/whoami (Basic), no tracing',
      server: await spawnServer(quarryMain, ['start', '--role', 'api'], apiEnv),
      path: '/v1/whoami',
      headers: { authorization },
    });
    targets.push({
      label: 'quarry, every trace exported',
      server: await spawnServer(quarryMain, ['start', '--role', 'api'], { ...apiEnv, OTEL_EXPORTER_OTLP_ENDPOINT: everySink.url }),
      path: '/v1/whoami',
      headers: { authorization },
      sink: everySink,
    });
    targets.push({
      label: 'quarry, 10% of traces exported',
      server: await spawnServer(quarryMain, ['start', '--role', 'api'], {
        ...apiEnv,
        OTEL_EXPORTER_OTLP_ENDPOINT: sampledSink.url,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      }),
      path: '/v1/whoami',
      headers: { authorization },
      sink: sampledSink,
    });
    for (let run = 0; run < options.runs; run++) {
      for (const target of targets) {
        const pid = target.server.child.pid ?? 0;
        const cpuBefore = cpuSeconds(pid);
        const result = await load(`http://127.0.0.1:${target.server.port}${target.path}`, {
          connections: options.connections,
          seconds: options.seconds,
          headers: target.headers,
        });
        const answered = result.totalRequests;
        requests.set(target, (requests.get(target) ?? 0) + answered);
        rounds.set(target, [...(rounds.get(target) ?? []), { result, cpuMsPerRequest: ((cpuSeconds(pid) - cpuBefore) * 1000) / answered }]);
      }
    }
  } finally {
    // Stopping a traced server flushes its last spans (the SDK's shutdown) before it exits.
    for (const target of targets) await target.server.stop();
    everySink.close();
    sampledSink.close();
    await redis.cleanup();
    await database.drop();
  }
  const bareRounds = rounds.get(targets[0] as Target) ?? [];
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;
  printTable(
    `HTTP: ${options.connections} connections, ${options.runs} runs of ${options.seconds} s per server in turns (each after 2 s warm-up); ratios are to bare express in the same run`,
    [
      'target',
      'req/s (median)',
      'p99 ms (median)',
      'errors',
      'CPU per request, µs (median)',
      'vs bare, each run',
      'vs bare (median)',
      'spans exported / requests answered',
    ],
    targets.map((target) => {
      const own = rounds.get(target) ?? [];
      const ratios = own.map((round, index) => round.result.requestsPerSecond / (bareRounds[index]?.result.requestsPerSecond ?? 1));
      return [
        target.label,
        Math.round(median(own.map((round) => round.result.requestsPerSecond))),
        median(own.map((round) => round.result.p99Ms)),
        own.reduce((sum, round) => sum + round.result.errors + round.result.non2xx, 0),
        Math.round(median(own.map((round) => round.cpuMsPerRequest)) * 1000),
        ratios.map((ratio) => `${Math.round(ratio * 100)}%`).join(', '),
        `${Math.round(median(ratios) * 100)}%`,
        target.sink ? `${target.sink.spans()} / ${requests.get(target) ?? 0}` : '',
      ];
    }),
  );
}
