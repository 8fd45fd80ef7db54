import { waitFor } from '@quarry/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { csvOf, startRecruitmentStack, type RecruitmentStack } from './support/recruitment-stack.ts';

let stack: RecruitmentStack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const rowsAt = (prefix: string, count: number, path: (index: number) => string, origin: string) =>
  Array.from({ length: count }, (_, index) => ({ jobPostId: `${prefix}-${index + 1}`, url: `${origin}${path(index + 1)}` }));

async function submit(current: RecruitmentStack, csv: string): Promise<string> {
  const response = await current.submitCsv(csv);
  expect(response.status).toBe(200);
  return ((await response.json()) as { batchId: string }).batchId;
}

async function counts(current: RecruitmentStack, batchId: string) {
  const result = await current.db.query<{ processed_count: number; succeeded_count: number; jobs_count: number; state: string }>(
    'SELECT processed_count, succeeded_count, jobs_count, state FROM batches WHERE batch_id = $1',
    [batchId],
  );
  return result.rows[0]!;
}

describe('isolation', () => {
  it('a slow employer site delays neither another batch nor single requests', async () => {
    stack = await startRecruitmentStack('isolation', { MINING_BATCH_CONCURRENCY: '2' });
    const current = stack;
    const slowBatch = await submit(current, csvOf(rowsAt('slow', 20, (n) => `/slow/${n}?ms=5000`, current.web.origin)));
    await waitFor('the slow batch to be running', () => (current.web.hits.get('slow') ?? 0) >= 2);

    const started = Date.now();
    const fastBatch = await submit(current, csvOf(rowsAt('fast', 100, (n) => `/jobs/${n}`, current.web.origin)));
    const single = await current.call('/v1/recruitment/job-posts/mine', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobPostId: 'single', url: `${current.web.origin}/forms/basic`, employer: 'Other', jobTitle: 'Engineer' }),
    });
    expect(single.status).toBe(200);
    await waitFor(
      'the single post',
      async () => ((await (await current.call('/questions/single')).json()) as { questions?: unknown }).questions !== undefined,
    );
    const singleSeconds = (Date.now() - started) / 1000;
    await current.waitForBatch(fastBatch, 'finished', 30_000);
    const fastSeconds = (Date.now() - started) / 1000;

    // 100 rows at concurrency 2 take a few seconds; the slow batch needs 50 s for its 20 rows.
    expect(singleSeconds).toBeLessThan(3);
    expect(fastSeconds).toBeLessThan(15);
    const slow = await counts(current, slowBatch);
    expect(slow.state).not.toBe('finished');
    expect(slow.processed_count).toBeLessThanOrEqual(6);
  });
});

describe('pause and resume', () => {
  it('stops a paused batch and resumes it with no row lost or mined twice', async () => {
    stack = await startRecruitmentStack('pause', { MINING_BATCH_CONCURRENCY: '2' });
    const current = stack;
    const batchId = await submit(current, csvOf(rowsAt('p', 120, (n) => `/slow/${n}?ms=100`, current.web.origin)));
    await waitFor('some progress', async () => (await counts(current, batchId)).processed_count >= 10);

    const paused = await current.call(`/v1/admin/batches/${batchId}/pause`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'employer site struggling' }),
    });
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ state: 'paused', pausedReason: 'employer site struggling' });
    // Rows already running finish; then nothing moves.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const settled = (await counts(current, batchId)).processed_count;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await counts(current, batchId)).processed_count).toBe(settled);
    expect(settled).toBeLessThan(120);
    const status = (await (await current.call(`/v1/recruitment/job-posts/batch/status/?batchId=${batchId}`)).json()) as { state: string };
    expect(status.state).toBe('paused');

    const resumed = await current.call(`/v1/admin/batches/${batchId}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    expect(await resumed.json()).toMatchObject({ state: 'resumed' });
    expect((await current.call(`/v1/admin/batches/${batchId}/resume`, { method: 'POST' })).status).toBe(409);

    await current.waitForBatch(batchId, 'finished', 60_000);
    expect(await counts(current, batchId)).toMatchObject({ processed_count: 120, succeeded_count: 120, jobs_count: 120 });
    // Every row was fetched exactly once: no row ran twice.
    expect(current.web.hits.get('slow')).toBe(120);
    const states = await current.db.query(`SELECT state, count(*)::int AS n FROM submissions WHERE batch_id = $1 GROUP BY state`, [
      batchId,
    ]);
    expect(states.rows).toEqual([{ state: 'completed', n: 120 }]);
  });

  it('pauses by itself when the success rate over the window drops', async () => {
    stack = await startRecruitmentStack('autopause', {
      MINING_AUTOPAUSE_WINDOW: '10',
      MINING_AUTOPAUSE_MIN_SUCCESS_RATE: '0.5',
      MINING_BATCH_CONCURRENCY: '2',
    });
    const current = stack;
    const batchId = await submit(current, csvOf(rowsAt('bad', 100, (n) => `/error/${n}`, current.web.origin)));
    await current.waitForBatch(batchId, 'paused', 30_000);
    const detail = (await (await current.call(`/v1/admin/batches/${batchId}`)).json()) as {
      pausedReason: string;
      errorCodes: Array<{ errorCode: string; count: number }>;
      processedCount: number;
    };
    expect(detail.pausedReason).toMatch(/^auto: success rate 0% over the last 10/);
    expect(detail.errorCodes[0]).toMatchObject({ errorCode: 'GenericWebsiteError' });
    expect(detail.processedCount).toBeLessThan(30);
  });
});

describe('crashes', () => {
  it('finishes a batch with every row accounted for after a worker is SIGKILLed mid-batch', async () => {
    stack = await startRecruitmentStack('crash', { MINING_BATCH_CONCURRENCY: '4' }, 2);
    const current = stack;
    const batchId = await submit(current, csvOf(rowsAt('k', 200, (n) => `/slow/${n}?ms=150`, current.web.origin)));
    await waitFor('some progress', async () => (await counts(current, batchId)).processed_count >= 20);
    const victim = current.workers[0]!;
    victim.child.kill('SIGKILL');
    await victim.exited;
    await current.startWorker();
    await current.waitForBatch(batchId, 'finished', 90_000);
    expect(await counts(current, batchId)).toMatchObject({ processed_count: 200, succeeded_count: 200 });
    const states = await current.db.query(`SELECT state, count(*)::int AS n FROM submissions WHERE batch_id = $1 GROUP BY state`, [
      batchId,
    ]);
    expect(states.rows).toEqual([{ state: 'completed', n: 200 }]);
  });
});
