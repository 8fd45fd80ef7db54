import { describeIssues, JobPostInput, validationError } from '@quarry/contracts';
import { insertSingleSubmission } from './submissions.queries.ts';
import { isStoreOutage } from '@quarry/jobs';
import type { RecruitmentPorts } from './recruitment-ports.ts';

/**
 * POST /v1/recruitment/job-posts/mine/: durable in Postgres, then queued; answered after both.
 * With Redis away the post is still accepted: it is in Postgres, and the mining workers'
 * reconciler queues it once Redis is back (reviveStrandedRows).
 */
export async function submitJobPost(
  ports: Pick<RecruitmentPorts, 'pool' | 'queue'>,
  clientId: string,
  body: unknown,
): Promise<{ jobPostId: string; status: 'queued' }> {
  const parsed = JobPostInput.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const submissionId = await insertSingleSubmission(ports.pool, { clientId, ...parsed.data });
  try {
    await ports.queue.enqueueSingle(submissionId);
  } catch (error) {
    if (!isStoreOutage(error)) throw error;
  }
  return { jobPostId: parsed.data.jobPostId, status: 'queued' };
}
