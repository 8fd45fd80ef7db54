import { describeIssues, JobPostInput, validationError } from '@quarry/contracts';
import { insertSingleSubmission } from './submissions.queries.ts';
import type { RecruitmentPorts } from './recruitment-ports.ts';

/** POST /v1/recruitment/job-posts/mine/: durable in Postgres, then queued; answered after both. */
export async function submitJobPost(
  ports: Pick<RecruitmentPorts, 'pool' | 'queue'>,
  clientId: string,
  body: unknown,
): Promise<{ jobPostId: string; status: 'queued' }> {
  const parsed = JobPostInput.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const submissionId = await insertSingleSubmission(ports.pool, { clientId, ...parsed.data });
  await ports.queue.enqueueSingle(submissionId);
  return { jobPostId: parsed.data.jobPostId, status: 'queued' };
}
