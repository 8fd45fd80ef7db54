import type { Enqueue, EnqueueMany, FamilyQueueControl } from '@quarry/jobs';
import type { MiningQueuePort } from './recruitment-ports.ts';

/** The producer ports recruitment needs, typed by the job catalog; the role wires them from `JobQueues`. */
export type MiningJobs = {
  mine: Enqueue<'mining.mine'>;
  mineBatchRows: EnqueueMany<'mining.mine-batch-row'>;
  admit: Enqueue<'mining.admit'>;
  batchQueues: FamilyQueueControl;
};

/** The recruitment queue port over those jobs: single posts share a queue, each batch has its own. */
export function createMiningQueuePort(jobs: MiningJobs): MiningQueuePort {
  const configured = new Set<string>();
  return {
    async enqueueSingle(submissionId) {
      await jobs.mine({ submissionId }, { jobId: `s${submissionId}` });
    },
    async enqueueBatchRows(batchId, rows, limits) {
      if (!configured.has(batchId)) {
        // Caps running rows across every worker process, not only per process.
        await jobs.batchQueues.setGlobalConcurrency(batchId, limits.concurrency);
        configured.add(batchId);
      }
      await jobs.mineBatchRows(
        rows.map((row) => ({ payload: { submissionId: row.submissionId }, options: { jobId: `r${batchId}.${row.rowNo}` } })),
        { queueKey: batchId },
      );
    },
    async requestAdmission(batchId) {
      await jobs.admit({ batchId });
    },
    async pauseBatchQueue(batchId) {
      await jobs.batchQueues.pause(batchId);
    },
    async resumeBatchQueue(batchId) {
      await jobs.batchQueues.resume(batchId);
    },
  };
}
