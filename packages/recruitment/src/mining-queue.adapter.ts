import {
  bulkEnqueuer,
  enqueuer,
  familyQueueControl,
  queuedJobFinder,
  type Enqueue,
  type EnqueueMany,
  type FamilyQueueControl,
  type FindQueuedJob,
  type JobQueues,
} from '@quarry/jobs';
import type { MiningQueuePort } from './recruitment-ports.ts';

/** The producer ports recruitment needs, typed by the job catalog; the role wires them from `JobQueues`. */
export type MiningJobs = {
  mine: Enqueue<'mining.mine'>;
  mineBatchRows: EnqueueMany<'mining.mine-batch-row'>;
  admit: Enqueue<'mining.admit'>;
  batchQueues: FamilyQueueControl;
  /** Jobs of single posts (`mining.single`) and of batch rows (`mining.batch`, keyed by batch id), for the reconciler. */
  findSingleJob: FindQueuedJob;
  findBatchRowJob: FindQueuedJob;
};

/** The mining jobs of the catalog, wired from a process's queues (the API's producer queues or a worker's). */
export function miningJobsOf(queues: JobQueues): MiningJobs {
  return {
    mine: enqueuer(queues, 'mining.mine'),
    mineBatchRows: bulkEnqueuer(queues, 'mining.mine-batch-row'),
    admit: enqueuer(queues, 'mining.admit'),
    batchQueues: familyQueueControl(queues, 'mining.batch'),
    findSingleJob: queuedJobFinder(queues, 'mining.single'),
    findBatchRowJob: queuedJobFinder(queues, 'mining.batch'),
  };
}

/** The recruitment queue port over those jobs: single posts share a queue, each batch has its own. */
export function createMiningQueuePort(jobs: MiningJobs): MiningQueuePort {
  const configured = new Set<string>();
  const port: MiningQueuePort = {
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
    async reviveJobs(rows) {
      let revived = 0;
      for (const row of rows) {
        const batchRow = row.batch;
        const job = batchRow
          ? await jobs.findBatchRowJob(`r${batchRow.batchId}.${batchRow.rowNo}`, batchRow.batchId)
          : await jobs.findSingleJob(`s${row.submissionId}`);
        const state = job ? job.state : 'unknown';
        if (job && (state === 'failed' || state === 'completed')) {
          // A job that failed on its first try was refused for good (a timeout, a malformed job):
          // repeating it would only fail again. Otherwise its attempts went on something that was
          // not the row's fault (they would have recorded the row as failed): a fresh start.
          const spent = job.attemptsMade >= job.attempts || /stalled/i.test(job.failedReason ?? '');
          if (state === 'failed' && !spent) continue;
          try {
            await job.restart();
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
