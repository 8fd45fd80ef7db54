import type { JobQueues } from '@quarry/jobs';
import type { MiningQueuePort } from './recruitment-ports.ts';

/** The recruitment queue port on BullMQ: single posts share a queue, each batch has its own. */
export function createMiningQueuePort(queues: JobQueues): MiningQueuePort {
  const configured = new Set<string>();
  return {
    async enqueueSingle(submissionId) {
      await queues.enqueue('mining.mine', { submissionId }, { jobId: `s${submissionId}` });
    },
    async enqueueBatchRows(batchId, rows, limits) {
      if (!configured.has(batchId)) {
        // Caps running rows across every worker process, not only per process.
        await queues.familyQueue('mining.batch', batchId).setGlobalConcurrency(limits.concurrency);
        configured.add(batchId);
      }
      await queues.enqueueBulk(
        'mining.mine-batch-row',
        rows.map((row) => ({ payload: { submissionId: row.submissionId }, options: { jobId: `r${batchId}.${row.rowNo}` } })),
        { queueKey: batchId },
      );
    },
    async requestAdmission(batchId) {
      await queues.enqueue('mining.admit', { batchId });
    },
    async pauseBatchQueue(batchId) {
      await queues.familyQueue('mining.batch', batchId).pause();
    },
    async resumeBatchQueue(batchId) {
      await queues.familyQueue('mining.batch', batchId).resume();
    },
  };
}
