import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { submitApplication } from '@quarry/applications';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { createPool, migrateToLatest, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, enqueuer, type JobQueues } from '@quarry/jobs';
import { findMinedPost } from '@quarry/recruitment';
import { createTestDatabase, createTestRedis, quarryEnv, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const workerScript = fileURLToPath(new URL('./support/applications-worker-with-test-applier.ts', import.meta.url));
const secretKey = Buffer.alloc(32, 7);

/** The test's side of the stand-in engine: counts calls, sees `beforeSubmit` done, holds the outcome. */
function startControl() {
  const seen = { called: 0, submitting: 0 };
  let outcome: string | null = null;
  const held: Array<(body: string) => void> = [];
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    if (path === '/cv.pdf') return void response.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7\nthe CV');
    if (path === '/called') seen.called += 1;
    if (path === '/submitting') seen.submitting += 1;
    if (path === '/outcome') {
      if (outcome !== null) return void response.end(outcome);
      held.push((body) => response.end(body));
      return;
    }
    request.resume();
    response.end('ok');
  });
  return {
    seen,
    server,
    release(body: unknown) {
      outcome = JSON.stringify(body);
      for (const answer of held.splice(0)) answer(outcome);
    },
  };
}

let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: ReturnType<typeof createRedis>;
let queues: JobQueues;
let control: ReturnType<typeof startControl>;
let origin: string;
const children: ChildProcess[] = [];

async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [workerScript], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"quarry started"')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
  return child;
}

beforeAll(async () => {
  database = await createTestDatabase('applications-crash');
  testRedis = createTestRedis('applications-crash');
  await migrateToLatest(database.url);
  db = createPool(database.url, 3);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  control = startControl();
  control.server.listen(0, '127.0.0.1');
  await once(control.server, 'listening');
  origin = `http://127.0.0.1:${(control.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  control.server.closeAllConnections();
  control.server.close();
  await queues.close();
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

describe('an application is submitted at most once', () => {
  it('a worker SIGKILLed after beforeSubmit: the restarted worker never calls the engine again and reports SubmissionOutcomeUnknown', async () => {
    const tenant = await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment'] });
    const questions = [
      { id: 'resume', question: 'CV', inputType: 'File', label: 'Apply', mandatory: true, category: 'resume', accept: ['.pdf'] },
    ];
    const submission = await db.query<{ submission_id: string }>(
      `INSERT INTO submissions (client_id, job_post_id, url, employer, job_title, country, state) VALUES ($1, 'post-1', $2, 'Acme', 'Engineer', 'gb', 'completed') RETURNING submission_id`,
      [tenant.clientId, `${origin}/apply`],
    );
    await db.query(
      `INSERT INTO mining_results (client_id, job_post_id, submission_id, body, body_v1, succeeded_at, adapter, duration_ms) VALUES ($1, 'post-1', $2, $3, $3, now(), 'test', 1)`,
      [
        tenant.clientId,
        submission.rows[0]!.submission_id,
        JSON.stringify({ jobPostId: 'post-1', succeededAt: new Date().toISOString(), answers: [], questions }),
      ],
    );
    const { applicationId } = await submitApplication(
      {
        pool: db,
        sealer: createSealer(secretKey),
        findMinedPost: (clientId, jobPostId) => findMinedPost(db, clientId, jobPostId),
        enqueueApply: enqueuer(queues, 'applications.apply'),
      },
      tenant.clientId,
      {
        jobPostId: 'post-1',
        candidate: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
        files: { cv: { type: 'File', url: `${origin}/cv.pdf`, filename: 'cv.pdf' } },
        answers: [],
      },
    );
    const env = {
      ...quarryEnv({ database, redis: testRedis, secretKey }),
      ALLOW_PRIVATE_URLS: '127.0.0.1',
      JOB_LOCK_MS: '2000',
      JOB_STALLED_INTERVAL_MS: '1000',
      MINING_BROWSER: 'off',
      TEST_APPLIER_URL: origin,
    };
    const first = await startWorker(env);
    await waitFor('the engine to reach the final step', () => control.seen.submitting === 1, { timeoutMs: 30_000 });
    const state = await db.query<{ state: string }>('SELECT state FROM applications WHERE application_id = $1', [applicationId]);
    expect(state.rows[0]!.state).toBe('submitting');
    first.kill('SIGKILL');
    await once(first, 'exit');

    // Had it run again, the engine would now be told the form succeeded.
    control.release({ status: 'success', confirmation: { text: 'Thank you for applying' } });
    await startWorker(env);
    const ended = await waitFor(
      'the application to end',
      async () => {
        const row = await db.query<{ state: string; error_code: string | null }>(
          'SELECT state, error_code FROM applications WHERE application_id = $1',
          [applicationId],
        );
        return row.rows[0]!.state === 'failed' || row.rows[0]!.state === 'success' ? row.rows[0] : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(ended).toEqual({ state: 'failed', error_code: 'SubmissionOutcomeUnknown' });
    expect(control.seen.called).toBe(1);
  });
});
