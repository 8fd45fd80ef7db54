export { createPool, withTransaction } from './pool.ts';
export type { Pool, PoolClient, Queryable } from './pool.ts';
export { ensureDatabase, migrateToLatest } from './migrate.ts';
export { miningActivityByMinute } from './mining-activity.queries.ts';
export type { ActivityMinute } from './mining-activity.queries.ts';
export {
  findActiveClientById,
  findActiveClientBySecretHash,
  insertClient,
  listClients,
  revokeClient,
} from './clients.queries.ts';
export type { ClientRow } from './clients.queries.ts';
export { completeCanary, findCanary, insertCanary, startCanaryRun } from './canaries.queries.ts';
export type { CanaryRow } from './canaries.queries.ts';
export { findRetrieval, finishSubmission, insertSingleSubmission, startSubmission } from './submissions.queries.ts';
export type { RetrievalRow, SubmissionOutcome, SubmissionState, SubmissionToMine } from './submissions.queries.ts';
export {
  admitBatchRows,
  batchErrorBreakdown,
  copyFailedRowsToBatch,
  listBatchJobPosts,
  countBatchInFlight,
  findBatch,
  findClientBatch,
  insertBatch,
  listBatches,
  openSubmissionCopy,
  pauseBatch,
  recentBatchSuccessRate,
  resumeBatch,
  setBatchJobsCount,
} from './batches.queries.ts';
export type { BatchJobPostRow, BatchRow, SubmissionCopyRow } from './batches.queries.ts';
export {
  countBindingOutcome,
  deleteClientBinding,
  deleteOrphanCounters,
  findActiveBinding,
  findClientBinding,
  insertOrReplaceExpiredBinding,
  isBoundRecipient,
  markExpiredBindings,
  updateClientBinding,
  updateClientBindingExpiry,
} from './bindings.queries.ts';
export type { BindingRow } from './bindings.queries.ts';
export {
  deferDelivery,
  deleteFinishedMessages,
  deleteMessageIfFinished,
  finishDelivery,
  insertAcceptedMessages,
  listOverdueDeliveries,
  lockDeliveriesToSend,
  recordDelivered,
  unlockDeliveries,
} from './mail.queries.ts';
export type { AcceptedMessage, DeliveryClaim, DeliveryKind, DeliveryState, DeliveryToSend, NewDelivery } from './mail.queries.ts';
export { assignFreeOutlookAccount, countFreeOutlookAccounts, insertOutlookAccounts } from './mail-accounts.queries.ts';
export { summarizeMailDeliveries } from './mail-admin.queries.ts';
export type { MailDeliverySummary } from './mail-admin.queries.ts';
