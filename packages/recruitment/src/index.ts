export { acceptBatch } from './accept-batch.ts';
export { admitBatch } from './admit-batch.ts';
export {
  batchExists,
  getBatchDetail,
  getBatchStatus,
  listActiveBatchIds,
  listBatchRows,
  listBatchSummaries,
  pauseBatchRun,
  resubmitFailedRows,
  resumeBatchRun,
} from './batch-admin.ts';
export { mineSubmission } from './mine-submission.ts';
export { recordMinedPost } from './record-mined-post.ts';
export { getMiningActivity } from './mining-activity.ts';
export type { BatchLimits, MiningPorts, MiningQueuePort, RecruitmentPorts, RecruitmentSettings, StrandedRow } from './recruitment-ports.ts';
export { createRetrievalCache } from './retrieval-cache.ts';
export type { RetrievalCache, RetrievalShape } from './retrieval-cache.ts';
export { retrieveMining } from './retrieve-mining.ts';
export { submitJobPost } from './submit-job-post.ts';
export { createMiningQueuePort, miningJobsOf } from './mining-queue.adapter.ts';
export type { MiningJobs } from './mining-queue.adapter.ts';
export { listBatches, listUnfinishedBatchIds } from './batches.queries.ts';
export { createOutcomeAnnouncer, followOutcomes } from './result-announcements.ts';
export { reviveStrandedRows } from './revive-stranded-rows.ts';
export { findMinedPost } from './find-mined-form.ts';
export type { MinedPost } from './find-mined-form.ts';
