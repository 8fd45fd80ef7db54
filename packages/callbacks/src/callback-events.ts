import { miningErrorMessages, type CallbackEventData, type MiningErrorCode } from '@quarry/contracts';

const path = (value: string) => encodeURIComponent(value);

/**
 * `jobPost.mined` / `jobPost.failed` for one mining outcome: ids, the status, and where the full
 * result is read (the same paths the client polls, with its own credentials).
 */
export function jobPostEvent(outcome: {
  jobPostId: string;
  batchId: string | null;
  kind: 'completed' | 'failed';
  errorCode?: string | null;
  succeededAt?: Date | null;
}):
  | { type: 'jobPost.mined'; data: CallbackEventData['jobPost.mined'] }
  | { type: 'jobPost.failed'; data: CallbackEventData['jobPost.failed'] } {
  const find = `/v2/recruitment/job-posts/find?jobPostId=${path(outcome.jobPostId)}`;
  if (outcome.kind === 'completed') {
    return {
      type: 'jobPost.mined',
      data: {
        jobPostId: outcome.jobPostId,
        batchId: outcome.batchId,
        status: 'completed',
        succeededAt: (outcome.succeededAt ?? new Date()).toISOString(),
        links: { questions: `/questions/${path(outcome.jobPostId)}`, find },
      },
    };
  }
  const errorCode = (outcome.errorCode ?? 'GenericWebsiteError') as MiningErrorCode;
  return {
    type: 'jobPost.failed',
    data: {
      jobPostId: outcome.jobPostId,
      batchId: outcome.batchId,
      status: 'failed',
      errorCode,
      message: miningErrorMessages[errorCode] ?? miningErrorMessages.GenericWebsiteError,
      links: { find },
    },
  };
}

/** `batch.finished`: the batch's counts per outcome, and where its status is read. */
export function batchFinishedEvent(batch: {
  batchId: string;
  jobsCount: number;
  completed: number;
  failed: number;
  failedByErrorCode: Record<string, number>;
  finishedAt: Date;
}): { type: 'batch.finished'; data: CallbackEventData['batch.finished'] } {
  return {
    type: 'batch.finished',
    data: {
      batchId: batch.batchId,
      jobsCount: batch.jobsCount,
      counts: { completed: batch.completed, failed: batch.failed, failedByErrorCode: batch.failedByErrorCode },
      finishedAt: batch.finishedAt.toISOString(),
      links: { status: `/v1/recruitment/job-posts/batch/status/?batchId=${batch.batchId}` },
    },
  };
}

/**
 * `application.ended`: the status, error code and transport; never the candidate's details, the
 * answers or the site's own message (which may repeat them). `replacedUnknown`: this definite
 * outcome replaces an earlier `SubmissionOutcomeUnknown`.
 */
export function applicationEndedEvent(application: {
  applicationId: string;
  jobPostId: string;
  status: 'success' | 'failed';
  errorCode: string | null;
  transport: CallbackEventData['application.ended']['transport'] | null;
  submittedAt: Date | null;
  replacedUnknown: boolean;
}): { type: 'application.ended'; data: CallbackEventData['application.ended'] } {
  return {
    type: 'application.ended',
    data: {
      applicationId: application.applicationId,
      jobPostId: application.jobPostId,
      status: application.status,
      ...(application.status === 'failed' && application.errorCode
        ? { errorCode: application.errorCode as CallbackEventData['application.ended']['errorCode'] }
        : {}),
      ...(application.transport ? { transport: application.transport } : {}),
      ...(application.status === 'success' && application.submittedAt ? { submittedAt: application.submittedAt.toISOString() } : {}),
      ...(application.replacedUnknown ? { replaces: { status: 'failed' as const, errorCode: 'SubmissionOutcomeUnknown' as const } } : {}),
      links: { application: `/v1/recruitment/job-posts/find/application/?applicationId=${application.applicationId}` },
    },
  };
}
