import { Readable } from 'node:stream';
import { createClient } from '@quarry/auth';
import { createPool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv, startFixtureWeb } from '@quarry/testing';
import { Queue } from 'bullmq';
import { parse } from 'csv-parse';
import { Redis } from 'ioredis';
import copyStreams from 'pg-copy-streams';
import { printTable, repoRoot, spawnServer } from './harness.ts';
import { sampleRss } from './rss-sampler.ts';

function makeCsv(rows: number, origin: string): string {
  const lines = ['jobPostId,url,employer,jobTitle'];
  for (let index = 1; index <= rows; index += 1)
    lines.push(`post-${index},${origin}/jobs/${index},Acme Corporation,Senior Software Engineer`);
  return `${lines.join('\n')}\n`;
}

async function time<T>(work: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { seconds: (performance.now() - started) / 1000, value };
}

/**
 * `npm run bench -- batch-intake`: time to the 200 of a 70,000-row fileUrl batch and a 30,000-row
 * text/csv batch, rows/s and the API process's RSS growth, beside the floors measured in the same
 * run (csv-parse alone, COPY alone, BullMQ addBulk of 70,000 jobs alone). Target: 70,000 rows
 * accepted in under 1 s with RSS growth under 150 MB.
 */
export async function benchBatchIntake(options: { runs: number }): Promise<void> {
  const web = await startFixtureWeb();
  const database = await createTestDatabase('bench_intake');
  const redis = createTestRedis('bench-intake');
  const secretKey = Buffer.alloc(32, 2);
  const db = createPool(database.url, 2);
  const client = await createClient({ db, secretKey }, { name: 'bench', scopes: ['recruitment'] });
  const authorization = `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}`;
  const big = makeCsv(70_000, 'https://careers.example.com');
  const small = makeCsv(30_000, 'https://careers.example.com');
  const fileUrl = web.serveFile('big.csv', big);
  const rows: Array<Array<string | number>> = [];

  // Floors, same machine, same run.
  const parsed = await time(async () => {
    let count = 0;
    for await (const _record of Readable.from([big]).pipe(parse({ bom: true }))) count += 1;
    return count;
  });
  rows.push(['floor: csv-parse 70,000 rows', parsed.seconds.toFixed(3), Math.round(70_000 / parsed.seconds), '']);
  const copied = await time(async () => {
    const connection = await db.connect();
    try {
      await connection.query('CREATE TEMP TABLE copy_floor (job_post_id text, url text, employer text, job_title text)');
      await new Promise<void>((resolve, reject) => {
        const stream = connection.query(copyStreams.from('COPY copy_floor FROM STDIN WITH (FORMAT csv, HEADER true)'));
        stream.on('finish', resolve).on('error', reject);
        stream.end(big);
      });
    } finally {
      connection.release();
    }
  });
  rows.push(['floor: COPY 70,000 rows', copied.seconds.toFixed(3), Math.round(70_000 / copied.seconds), '']);
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const floorQueue = new Queue('floor', { connection, prefix: redis.prefix });
  const added = await time(async () => {
    for (let start = 0; start < 70_000; start += 1_000) {
      await floorQueue.addBulk(
        Array.from({ length: 1_000 }, (_, offset) => ({
          name: 'mine',
          data: { submissionId: String(start + offset) },
          opts: { jobId: `f${start + offset}` },
        })),
      );
    }
  });
  rows.push(['floor: BullMQ addBulk 70,000 jobs', added.seconds.toFixed(3), Math.round(70_000 / added.seconds), '']);
  await floorQueue.obliterate({ force: true });
  await floorQueue.close();
  connection.disconnect();

  const api = await spawnServer(`${repoRoot}apps/quarry/src/main.ts`, ['start', '--role', 'api'], {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...quarryEnv({ database, redis, secretKey }),
    ALLOW_PRIVATE_URLS: '127.0.0.1',
  });
  const base = `http://127.0.0.1:${api.port}/v1/recruitment/job-posts/batch/mine/`;
  const submit = async (label: string, jobs: number, request: () => Promise<Response>) => {
    for (let run = 1; run <= options.runs; run += 1) {
      const rss = sampleRss(api.child.pid ?? 0);
      const result = await time(request);
      const memory = rss.stop();
      const body = (await result.value.json()) as { jobsCount?: number };
      if (result.value.status !== 200 || body.jobsCount !== jobs)
        throw new Error(`${label}: HTTP ${result.value.status} ${JSON.stringify(body).slice(0, 300)}`);
      rows.push([
        `${label} (run ${run})`,
        result.seconds.toFixed(3),
        Math.round(jobs / result.seconds),
        `+${(memory.peakMb - memory.baselineMb).toFixed(0)} MB (peak ${memory.peakMb.toFixed(0)} MB)`,
      ]);
    }
  };
  try {
    await submit('quarry: 70,000 rows by fileUrl', 70_000, () =>
      fetch(base, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ fileUrl }) }),
    );
    await submit('quarry: 30,000 rows as text/csv', 30_000, () =>
      fetch(base, { method: 'POST', headers: { authorization, 'content-type': 'text/csv' }, body: small }),
    );
  } finally {
    await api.stop();
    await db.end();
    await web.close();
    await redis.cleanup();
    await database.drop();
  }
  printTable(
    'Batch intake (time to the 200 response; API process RSS growth during the request)',
    ['what', 'seconds', 'rows/s', 'API RSS'],
    rows,
  );
}
