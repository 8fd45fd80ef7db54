import type { Pool } from '@quarry/db';
import type { Enqueue, FindQueuedJob } from '@quarry/jobs';
import { endAbandonedApplications, findStrandedApplications } from './applications.queries.ts';

/**
 * The recurring `applications.reconcile` job. An application is committed before its job is
 * enqueued, so a Redis that failed in between, or restarted empty, leaves a row that no job will
 * ever run: this finds rows not ended and not held by a live run, untouched for `strandedAfterMs`,
 * and enqueues their job again under its own id (a run that finds the application ended or held
 * changes nothing), or restarts it when it ended without ending the application. Rows that never ended
 * within `retentionDays` are ended (`SubmissionOutcomeUnknown` once the intent was recorded,
 * `ApplicationFailed` otherwise) and their candidate data purged at once.
 */
export async function reconcileApplications(
  ports: { pool: Pool; enqueueApply: Enqueue<'applications.apply'>; findApplyJob?: FindQueuedJob },
  options: { strandedAfterMs: number; retentionDays: number; now?: Date; limit?: number },
): Promise<{ requeued: number; abandoned: number }> {
  const now = options.now ?? new Date();
  const abandoned = await endAbandonedApplications(ports.pool, new Date(now.getTime() - options.retentionDays * 86_400_000));
  const stranded = await findStrandedApplications(ports.pool, new Date(now.getTime() - options.strandedAfterMs), options.limit ?? 1_000);
  let requeued = 0;
  for (const applicationId of stranded) {
    const jobId = `apply-${applicationId}`;
    const job = await ports.findApplyJob?.(jobId);
    if (job && (job.state === 'failed' || job.state === 'completed')) {
      // Its attempts went on our stores being away (a run never ends an application failed for
      // that): a fresh start. A job refused for good on a try of its own (its timeout) stays so.
      const spent = job.attemptsMade >= job.attempts || /stalled/i.test(job.failedReason ?? '');
      if (job.state === 'failed' && !spent) continue;
      try {
        await job.restart();
      } catch {
        continue; // another process restarted it first
      }
    } else if (!job) await ports.enqueueApply({ applicationId }, { jobId });
    else continue;
    requeued += 1;
  }
  return { requeued, abandoned };
}
