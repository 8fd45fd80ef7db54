import type { JobQueues } from '@quarry/jobs';
import type { MiningQueuePort } from './recruitment-ports.ts';

/** The recruitment queue port on BullMQ: single posts share a queue, each batch has its own. */
export function createMiningQueuePort(queues: JobQueues): MiningQueuePort {
  const configured = new Set<string>();
  const port: MiningQueuePort = {
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
    async reviveJobs(rows) {
      let revived = 0;
      for (const row of rows) {
        const batchRow = row.batch;
        const queue = batchRow ? queues.familyQueue('mining.batch', batchRow.batchId) : queues.queue('mining.single');
        const job = await queue.getJob(batchRow ? `r${batchRow.batchId}.${batchRow.rowNo}` : `s${row.submissionId}`);
        const state = job ? await job.getState() : 'unknown';
        if (job && (state === 'failed' || state === 'completed')) {
          // A job that failed on its first try was refused for good (a timeout, a malformed job):
          // repeating it would only fail again. Otherwise its attempts went on something that was
          // not the row's fault (they would have recorded the row as failed): a fresh start.
          const spent = job.attemptsMade >= (job.opts.attempts ?? 1) || /stalled/i.test(job.failedReason ?? '');
          if (state === 'failed' && !spent) continue;
          try {
            await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
          } catch {
            continue; // another process revived it first
          }
        } else if (state === 'unknown') {
          if (batchRow) {
            // A Redis restarted empty lost the batch's concurrency cap too: set it again.
            configured.delete(batchRow.batchId);
            await port.enqueueBatchRows(batchRow.batchId, [{ submissionId: row.submissionId, rowNo: batchRow.rowNo }], batchRow.limits);
          } else await port.enqueueSingle(row.submissionId);
        } else continue;
        revived += 1;
      }
      return revived;
    },
  };
  return port;
}
