import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import {
  createTestDatabase,
  createTestRedis,
  quarryEnv,
  startFixtureWeb,
  waitFor,
  type FixtureWeb,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { startQuarry, type QuarryProcess } from './quarry-process.ts';

type Tenant = { clientId: string; secret: string; authorization: string };

export type RecruitmentStack = {
  web: FixtureWeb;
  db: Pool;
  env: Record<string, string>;
  api: QuarryProcess;
  workers: QuarryProcess[];
  base: string;
  tenant: Tenant;
  newTenant: (scopes?: Array<'recruitment' | 'admin'>) => Promise<Tenant>;
  startWorker: () => Promise<QuarryProcess>;
  call: (path: string, init?: RequestInit & { as?: Tenant }) => Promise<Response>;
  submitCsv: (csv: string, contentType?: string, as?: Tenant) => Promise<Response>;
  waitForBatch: (
    batchId: string,
    state: string,
    timeoutMs?: number,
  ) => Promise<{ state: string; processedRate: number; successRate: number; jobsCount: number }>;
  stop: () => Promise<void>;
};

const secretKey = Buffer.alloc(32, 5);

export function csvOf(rows: Array<{ jobPostId: string; url: string; employer?: string; jobTitle?: string }>): string {
  return [
    'jobPostId,url,employer,jobTitle',
    ...rows.map((row) => `${row.jobPostId},${row.url},${row.employer ?? 'Acme'},${row.jobTitle ?? 'Engineer'}`),
  ].join('\r\n');
}

/** Postgres, Redis, a fixture careers site, an API process and mining worker process(es). */
export async function startRecruitmentStack(
  label: string,
  extraEnv: Record<string, string> = {},
  workerCount = 1,
): Promise<RecruitmentStack> {
  const web = await startFixtureWeb();
  const database: TestDatabase = await createTestDatabase(label);
  const redis: TestRedis = createTestRedis(label);
  const db = createPool(database.url, 3);
  const env = {
    ...quarryEnv({ database, redis, secretKey }),
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    AUTH_CACHE_MS: '0',
    JOB_LOCK_MS: '3000',
    JOB_STALLED_INTERVAL_MS: '1000',
    MINING_BATCH_POLL_MS: '200',
    MINING_BATCH_CONCURRENCY: '8',
    MINING_BATCH_RATE_PER_MINUTE: '60000',
    WORKER_CONCURRENCY: '8',
    ...extraEnv,
  };
  const newTenant = async (scopes: Array<'recruitment' | 'admin'> = ['recruitment', 'admin']): Promise<Tenant> => {
    const created = await createClient({ db, secretKey }, { name: `tenant ${Math.random()}`, scopes });
    return {
      clientId: created.clientId,
      secret: created.secret,
      authorization: `Basic ${Buffer.from(`${created.secret}:`).toString('base64')}`,
    };
  };
  const tenant = await newTenant();
  const api = await startQuarry('api', env);
  const workers: QuarryProcess[] = [];
  const startWorker = async () => {
    const worker = await startQuarry('mining-worker', env);
    workers.push(worker);
    return worker;
  };
  for (let index = 0; index < workerCount; index += 1) await startWorker();
  const base = `http://127.0.0.1:${api.port}`;
  const call = (path: string, init: RequestInit & { as?: Tenant } = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { authorization: (init.as ?? tenant).authorization, ...(init.headers as Record<string, string> | undefined) },
    });
  return {
    web,
    db,
    env,
    api,
    workers,
    base,
    tenant,
    newTenant,
    startWorker,
    call,
    submitCsv: (csv, contentType = 'text/csv', as) =>
      call('/v1/recruitment/job-posts/batch/mine/', {
        method: 'POST',
        body: csv,
        headers: { 'content-type': contentType },
        ...(as ? { as } : {}),
      }),
    waitForBatch: (batchId, state, timeoutMs = 60_000) =>
      waitFor(
        `batch ${batchId} ${state}`,
        async () => {
          const status = (await (await call(`/v1/recruitment/job-posts/batch/status/?batchId=${batchId}`)).json()) as {
            state: string;
            processedRate: number;
            successRate: number;
            jobsCount: number;
          };
          return status.state === state ? status : undefined;
        },
        { timeoutMs, intervalMs: 200 },
      ),
    stop: async () => {
      for (const quarry of [api, ...workers]) {
        if (quarry.child.exitCode === null && quarry.child.signalCode === null) quarry.child.kill('SIGKILL');
        await quarry.exited;
      }
      await db.end();
      await web.close();
      await redis.cleanup();
      await database.drop();
    },
  };
}
