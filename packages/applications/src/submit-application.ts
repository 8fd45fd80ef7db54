import { randomUUID } from 'node:crypto';
import { ensureCallbackSecret, vetCallbackUrl } from '@quarry/callbacks';
import { withTransaction } from '@quarry/db';
import { AppError, ApplyBody, describeIssues, validationError, type ApplyResponse } from '@quarry/contracts';
import { validateAnswers } from './answer-validation.ts';
import type { ApplicationsPorts } from './applications-ports.ts';
import { finishApplication, hasEarlierSuccess, insertApplication } from './applications.queries.ts';
import { alreadyAppliedMessage } from './already-applied.ts';
import { atsJobKey } from './ats-job.ts';
import { sealApplication } from './sealed-application.ts';

const idempotencyKeyPattern = /^[\x21-\x7e]{1,200}$/;

/**
 * POST /v1/recruitment/job-posts/apply/: checks the application against the post's mined
 * questions (every problem named by question id), stores it sealed, then queues it. A post not
 * mined yet needs `url`: it is mined by the job first, and its answers are checked then.
 * An `Idempotency-Key` already used by this client returns the first application unchanged.
 * With `callbackUrl` (checked against the SSRF policy first) `application.ended` is POSTed there;
 * the client's first one creates its callback secret in the same transaction, shown once.
 */
export async function submitApplication(
  ports: ApplicationsPorts,
  clientId: string,
  body: unknown,
  idempotencyKey?: string,
): Promise<ApplyResponse> {
  if (idempotencyKey !== undefined && !idempotencyKeyPattern.test(idempotencyKey)) {
    throw validationError(['Idempotency-Key: 1 to 200 printable ASCII characters']);
  }
  const parsed = ApplyBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const application = parsed.data;
  if (application.callbackUrl) {
    if (!ports.checkCallbackUrl) throw validationError(['callbackUrl: callbacks are not taken here']);
    await vetCallbackUrl(ports.checkCallbackUrl, application.callbackUrl);
  }

  const mined = await ports.findMinedPost(clientId, application.jobPostId);
  if (mined) {
    const { problems } = validateAnswers(mined.questions, application);
    if (problems.length > 0) throw validationError(problems.map((problem) => `answers ${problem.message}`));
  } else if (!application.url) {
    throw new AppError(
      'RequestParametersValidationError',
      `url: required, since jobPostId ${application.jobPostId} has not been mined for this client (it is then mined before the application)`,
      {
        messages: [`url: required, since jobPostId ${application.jobPostId} has not been mined for this client`],
      },
    );
  }
  const url = mined?.url ?? application.url ?? null;
  const emailHash = ports.sealer.hashEmail(application.candidate.email);
  const atsJob = atsJobKey(url, application.jobPostId);
  let webhookSecret: string | undefined;
  const newApplicationId = randomUUID();
  const { applicationId, created } = await withTransaction(ports.pool, async (client) => {
    if (application.callbackUrl) webhookSecret = await ensureCallbackSecret(client, ports.sealer, clientId);
    return insertApplication(client, {
      applicationId: newApplicationId,
      clientId,
      jobPostId: application.jobPostId,
      atsJob,
      emailHash,
      idempotencyKey: idempotencyKey ?? null,
      url,
      host: url ? new URL(url).hostname.toLowerCase() : null,
      employer: mined?.employer ?? application.employer ?? null,
      jobTitle: mined?.jobTitle ?? application.jobTitle ?? null,
      questions: mined ? JSON.stringify(mined.questions) : null,
      sealed: sealApplication(ports.sealer, newApplicationId, {
        candidate: application.candidate,
        files: application.files,
        answers: application.answers,
      }),
      callbackUrl: application.callbackUrl ?? null,
    });
  });
  const shown = webhookSecret ? { webhookSecret } : {};
  if (created && (await hasEarlierSuccess(ports.pool, { clientId, atsJob, jobPostId: application.jobPostId, emailHash }, applicationId))) {
    // Never touches the employer's site: answered at once (the job would find the same).
    await finishApplication(ports.pool, applicationId, {
      status: 'failed',
      errorCode: 'AlreadyApplied',
      message: alreadyAppliedMessage,
      submittedAt: null,
      screenshotSealed: null,
    });
    return { applicationId, status: 'processing', ...shown };
  }
  // The job id is the application's: a repeated request (same key) re-queues nothing that exists,
  // and re-queues one whose first enqueue was lost (the job skips a finished application).
  await ports.enqueueApply({ applicationId }, { jobId: `apply-${applicationId}` });
  return { applicationId, status: 'processing', ...shown };
}
