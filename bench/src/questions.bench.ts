import { fileURLToPath } from 'node:url';
import { createClient } from '@quarry/auth';
import { createPool } from '@quarry/db';
import { fixtureForms, createTestDatabase, createTestRedis } from '@quarry/testing';
import { extractHtmlForm, syntheticAnswers } from '@quarry/miner';
import { load, printTable, repoRoot, spawnServer, type LoadResult } from './harness.ts';

/** A stored result the size the issue measures its floor with (about 8.8 KB of JSON). */
function resultBody(jobPostId: string): string {
  const extracted = extractHtmlForm(fixtureForms.grouped, { defaultLabel: 'Application' });
  if (!extracted.ok) throw new Error('fixture form did not extract');
  const questions = Array.from({ length: 6 }, () => extracted.questions)
    .flat()
    .map((question, index) => ({ ...question, id: `${question.id}_${index}` }));
  return JSON.stringify({ jobPostId, succeededAt: new Date().toISOString(), answers: syntheticAnswers(questions), questions });
}

/**
 * `npm run bench -- questions`: GET /questions/:id for completed results (autocannon, 50
 * connections, 100 posts in turn) beside express + pg returning the same stored text by prepared
 * statement, and quarry without its retrieval cache.
 * Target: ≥ 8,000 req/s with p99 < 15 ms.
 */
export async function benchQuestions(options: { seconds: number; connections: number }): Promise<void> {
  const database = await createTestDatabase('bench_questions');
  const redis = createTestRedis('bench-questions');
  const secretKey = Buffer.alloc(32, 4);
  const db = createPool(database.url, 2);
  const client = await createClient({ db, secretKey }, { name: 'bench', scopes: ['recruitment'] });
  const ids = Array.from({ length: 1_000 }, (_, index) => `post-${index}`);
  const body = resultBody('post-0');
  await db.query(
    `INSERT INTO submissions (client_id, job_post_id, url, employer, job_title, country, state, finished_at)
     SELECT $1, id, 'https://careers.example.com/' || id, 'Acme', 'Engineer', 'gb', 'completed', now() FROM unnest($2::text[]) AS id`,
    [client.clientId, ids],
  );
  await db.query(
    `INSERT INTO mining_results (client_id, job_post_id, submission_id, body, body_v1, succeeded_at, adapter, duration_ms)
     SELECT s.client_id, s.job_post_id, s.submission_id, $2, $2, now(), 'html-form', 10 FROM submissions s WHERE s.client_id = $1`,
    [client.clientId, body],
  );
  await db.end();
  const env = { DATABASE_URL: database.url, CLIENT_ID: client.clientId };
  const requests = ids.slice(0, 100).map((id) => ({ method: 'GET' as const, path: `/questions/${id}` }));
  const rows: Array<[string, LoadResult]> = [];
  const measure = async (
    label: string,
    script: string,
    args: string[],
    extraEnv: Record<string, string>,
    headers: Record<string, string>,
  ) => {
    const server = await spawnServer(script, args, { ...env, ...extraEnv });
    try {
      rows.push([
        label,
        await load(`http://127.0.0.1:${server.port}`, { connections: options.connections, seconds: options.seconds, headers, requests }),
      ]);
    } finally {
      await server.stop();
    }
  };
  try {
    await measure(
      'floor: express + pg, stored text by prepared statement',
      fileURLToPath(new URL('./questions-floor.server.ts', import.meta.url)),
      [],
      {},
      {},
    );
    const quarryEnv = {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      REDIS_URL: redis.url,
      QUEUE_PREFIX: redis.prefix,
      QUARRY_SECRET_KEY: secretKey.toString('base64'),
    };
    const basic = { authorization: `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}` };
    await measure(
      'quarry GET /questions/:id (Basic; retrieval cache, the default)',
      `${repoRoot}apps/quarry/src/main.ts`,
      ['start', '--role', 'api'],
      quarryEnv,
      basic,
    );
    // The same with every answer read from Postgres: a cold cache, or RETRIEVAL_CACHE_MB=0.
    await measure(
      'quarry, RETRIEVAL_CACHE_MB=0 (every answer from Postgres)',
      `${repoRoot}apps/quarry/src/main.ts`,
      ['start', '--role', 'api'],
      { ...quarryEnv, RETRIEVAL_CACHE_MB: '0' },
      basic,
    );
  } finally {
    await redis.cleanup();
    await database.drop();
  }
  printTable(
    `GET /questions/:id, ${(Buffer.byteLength(body) / 1024).toFixed(1)} KB results, ${options.connections} connections, ${options.seconds} s`,
    ['target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx'],
    rows.map(([label, result]) => [label, Math.round(result.requestsPerSecond), result.p50Ms, result.p99Ms, result.errors, result.non2xx]),
  );
}
