import type { Pool } from '@quarry/db';
import type { Enqueue } from '@quarry/jobs';
import { endAbandonedApplications, findStrandedApplications } from './applications.queries.ts';

/**
 * The recurring `applications.reconcile` job. An application is committed before its job is
 * enqueued, so a Redis that failed in between, or restarted empty, leaves a row that no job will
 * ever run: this finds rows not ended and not held by a live run, untouched for `strandedAfterMs`,
 * and enqueues their job again under its own id (a job that still exists makes the add a no-op,
 * and a run that finds the application ended or held changes nothing). Rows that never ended
 * within `retentionDays` are ended (`SubmissionOutcomeUnknown` once the intent was recorded,
 * `ApplicationFailed` otherwise) and their candidate data purged at once.
 */
export async function reconcileApplications(
  ports: { pool: Pool; enqueueApply: Enqueue<'applications.apply'> },
  options: { strandedAfterMs: number; retentionDays: number; now?: Date; limit?: number },
): Promise<{ requeued: number; abandoned: number }> {
  const now = options.now ?? new Date();
  const abandoned = await endAbandonedApplications(ports.pool, new Date(now.getTime() - options.retentionDays * 86_400_000));
  const stranded = await findStrandedApplications(ports.pool, new Date(now.getTime() - options.strandedAfterMs), options.limit ?? 1_000);
  for (const applicationId of stranded) await ports.enqueueApply({ applicationId }, { jobId: `apply-${applicationId}` });
  return { requeued: stranded.length, abandoned };
}
