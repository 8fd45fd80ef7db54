import { AppError, type BatchDetail, type BatchJobPostView, type BatchStatus, type BatchSummary } from '@quarry/contracts';
import { randomUUID } from 'node:crypto';
import { withTransaction, type Queryable } from '@quarry/db';
import {
  batchErrorBreakdown,
  copyFailedRowsToBatch,
  findBatch,
  findClientBatch,
  listBatches,
  listBatchJobPosts,
  pauseBatch,
  resumeBatch,
  type BatchRow,
} from './batches.queries.ts';
import type { RecruitmentPorts } from './recruitment-ports.ts';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toStatus(batch: BatchRow): BatchStatus {
  return {
    batchId: batch.batchId,
    createdAt: batch.createdAt.getTime(),
    state: batch.state,
    processedRate: batch.processedCount / batch.jobsCount,
    successRate: batch.processedCount === 0 ? 0 : batch.succeededCount / batch.processedCount,
    jobsCount: batch.jobsCount,
  };
}

function toSummary(batch: BatchRow): BatchSummary {
  return {
    ...toStatus(batch),
    clientId: batch.clientId,
    employer: batch.employer,
    processedCount: batch.processedCount,
    succeededCount: batch.succeededCount,
    failedCount: batch.failedCount,
    pausedReason: batch.pausedReason,
  };
}

export async function getBatchStatus(db: Queryable, clientId: string, batchId: string): Promise<BatchStatus> {
  const batch = uuidPattern.test(batchId) ? await findClientBatch(db, clientId, batchId) : null;
  if (!batch) throw new AppError('NotFound', `batch ${batchId} not found`);
  return toStatus(batch);
}

/** Operators see every client's batches (the admin scope belongs to the deployment's operators). */
export async function listBatchSummaries(db: Queryable, options: { limit: number; activeOnly: boolean }): Promise<BatchSummary[]> {
  return (await listBatches(db, options)).map(toSummary);
}

/** The batches not finished yet (at most 200, newest first): the batch queues operators inspect (queue list, dashboard's raw view). */
export async function listActiveBatchIds(db: Queryable): Promise<string[]> {
  return (await listBatches(db, { limit: 200, activeOnly: true })).map((batch) => batch.batchId);
}

/** Whether `batchId` names a batch (any state): a batch queue of any other name is unknown. */
export async function batchExists(db: Queryable, batchId: string): Promise<boolean> {
  return uuidPattern.test(batchId) && (await findBatch(db, batchId)) !== null;
}

export async function getBatchDetail(db: Queryable, batchId: string): Promise<BatchDetail> {
  const batch = uuidPattern.test(batchId) ? await findBatch(db, batchId) : null;
  if (!batch) throw new AppError('NotFound', `batch ${batchId} not found`);
  return { ...toSummary(batch), errorCodes: await batchErrorBreakdown(db, batchId) };
}

/** Stops admitting rows and pauses the batch's queue: running rows finish, nothing new starts. */
export async function pauseBatchRun(
  ports: Pick<RecruitmentPorts, 'pool' | 'queue'>,
  batchId: string,
  reason: string,
): Promise<BatchSummary> {
  const paused = uuidPattern.test(batchId) ? await pauseBatch(ports.pool, batchId, reason) : null;
  if (!paused) {
    await getBatchDetail(ports.pool, batchId);
    throw new AppError('Conflict', `batch ${batchId} is not running`);
  }
  await ports.queue.pauseBatchQueue(batchId);
  return toSummary(paused);
}

export async function resumeBatchRun(ports: Pick<RecruitmentPorts, 'pool' | 'queue'>, batchId: string): Promise<BatchSummary> {
  const resumed = uuidPattern.test(batchId) ? await resumeBatch(ports.pool, batchId) : null;
  if (!resumed) {
    await getBatchDetail(ports.pool, batchId);
    throw new AppError('Conflict', `batch ${batchId} is not paused`);
  }
  await ports.queue.resumeBatchQueue(batchId);
  await ports.queue.requestAdmission(batchId);
  return toSummary(resumed);
}

export async function listBatchRows(
  db: Queryable,
  batchId: string,
  filter: 'failed' | 'slowest',
  limit: number,
): Promise<BatchJobPostView[]> {
  await getBatchDetail(db, batchId);
  return listBatchJobPosts(db, batchId, { filter, limit });
}

/** Operators' "re-submit the failed ones": a new batch of the same client, admitted as usual. */
export async function resubmitFailedRows(
  ports: Pick<RecruitmentPorts, 'pool' | 'queue'>,
  batchId: string,
): Promise<{ batchId: string; jobsCount: number }> {
  await getBatchDetail(ports.pool, batchId);
  const newBatchId = randomUUID();
  const jobsCount = await withTransaction(ports.pool, async (client) => {
    const copied = await copyFailedRowsToBatch(client, batchId, newBatchId);
    if (copied === 0) throw new AppError('Conflict', `batch ${batchId} has no failed job posts`);
    return copied;
  });
  await ports.queue.requestAdmission(newBatchId);
  return { batchId: newBatchId, jobsCount };
}
