export { acceptBatch } from './accept-batch.ts';
export { admitBatch } from './admit-batch.ts';
export { getBatchDetail, getBatchStatus, listBatchRows, listBatchSummaries, pauseBatchRun, resubmitFailedRows, resumeBatchRun } from './batch-admin.ts';
export { mineSubmission } from './mine-submission.ts';
export type { BatchLimits, MiningPorts, MiningQueuePort, RecruitmentPorts, RecruitmentSettings } from './recruitment-ports.ts';
export { retrieveMining } from './retrieve-mining.ts';
export type { RetrievalShape } from './retrieve-mining.ts';
export { submitJobPost } from './submit-job-post.ts';
export { createMiningQueuePort } from './mining-queue.adapter.ts';
