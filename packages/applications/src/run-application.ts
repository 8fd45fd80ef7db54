import type { SubmitOutcome } from '@quarry/applier';
import { Question, type ApplicationErrorCode, type MiningErrorCode } from '@quarry/contracts';
import { z } from 'zod';
import { alreadyAppliedMessage } from './already-applied.ts';
import { validateAnswers, type AnswerProblem } from './answer-validation.ts';
import { findAtsAccount, findAtsCredential } from './ats-credentials.ts';
import type { RunPorts } from './applications-ports.ts';
import { finishApplication, hasEarlierSuccess, markSubmitting, startApplication, storeMinedQuestions, type ApplicationOutcome, type ApplicationToRun } from './applications.queries.ts';
import { FileProblem, resolveFiles } from './fetch-files.ts';
import { openApplication, type SealedApplication } from './sealed-application.ts';

/** What the job reports to its log: ids and codes only, never the candidate's data. */
export type RunSummary = { applicationId: string; status: 'skipped' | 'success' | 'failed'; errorCode?: string };

class IntentNotRecorded extends Error {
  readonly otherSubmission: boolean;
  constructor(applicationId: string, otherSubmission: boolean) {
    super(otherSubmission ? `another application of this candidate to this job is being submitted or succeeded` : `application ${applicationId} is no longer processing; not submitting it`);
    this.name = 'IntentNotRecorded';
    this.otherSubmission = otherSubmission;
  }
}

const outcomeUnknownMessage =
  'The form may have been submitted: the run stopped after the final step began and its result could not be confirmed. ' +
  'It is not retried; check with the employer (or the candidate\'s inbox) before applying again.';

/** Mining failures that say something about the post itself keep their meaning for an application. */
function fromMiningError(code: MiningErrorCode): ApplicationErrorCode {
  if (code === 'JobNotFound' || code === 'JobExpired' || code === 'BotDetection') return code;
  return 'ApplicationFailed';
}

function fromProblems(problems: AnswerProblem[]): { errorCode: ApplicationErrorCode; message: string } {
  const errorCode: ApplicationErrorCode = problems.some((problem) => problem.kind === 'file-type') ? 'FileTypeNotSupported' : 'MandatoryQuestionsNotAnswered';
  return { errorCode, message: problems.map((problem) => problem.message).join('; ') };
}

const failed = (errorCode: ApplicationErrorCode, message: string, submittedAt: Date | null = null, screenshot?: Buffer, seal?: (bytes: Buffer) => Buffer): ApplicationOutcome => ({
  status: 'failed',
  errorCode,
  message,
  submittedAt,
  screenshotSealed: screenshot && seal ? seal(screenshot) : null,
});

/**
 * The `applications.apply` job: runs one application at most once against the employer's site.
 * The intent to submit is committed (`submitting`) before the engine's irreversible step; a run
 * that finds it already recorded never calls the engine again and ends `SubmissionOutcomeUnknown`.
 * Failures are final (no automatic retry); only our own infrastructure failing before that point
 * makes the queue run the job again.
 */
export async function runApplication(
  ports: RunPorts,
  applicationId: string,
  context: { signal: AbortSignal; finalAttempt: boolean },
): Promise<RunSummary> {
  const application = await startApplication(ports.pool, applicationId);
  if (!application || application.state === 'success' || application.state === 'failed') return { applicationId, status: 'skipped' };
  const finish = async (outcome: ApplicationOutcome): Promise<RunSummary> => {
    await finishApplication(ports.pool, applicationId, outcome);
    return { applicationId, status: outcome.status, ...(outcome.status === 'failed' ? { errorCode: outcome.errorCode } : {}) };
  };
  if (application.state === 'submitting') return finish(failed('SubmissionOutcomeUnknown', outcomeUnknownMessage));
  if (!application.sealed) return finish(failed('ApplicationFailed', 'The application data is no longer kept'));

  let intentRecorded = false;
  try {
    return await submit(ports, application, openApplication(ports.sealer, application.sealed), context.signal, finish, () => {
      intentRecorded = true;
    });
  } catch (error) {
    // Once the intent is recorded, any end but a recorded outcome is an unknown one: the form may
    // be in. A hand-back at shutdown is re-run, and that run reports it the same way.
    if (intentRecorded && !context.signal.aborted) return finish(failed('SubmissionOutcomeUnknown', outcomeUnknownMessage));
    if (error instanceof IntentNotRecorded && error.otherSubmission) {
      return finish(failed('AlreadyApplied', 'Another application of this candidate to this job was submitted through this service'));
    }
    if (!context.finalAttempt || context.signal.aborted) throw error;
    return finish(failed('ApplicationFailed', 'The service could not run this application; nothing was submitted'));
  }
}

async function submit(
  ports: RunPorts,
  application: ApplicationToRun,
  sealed: SealedApplication,
  signal: AbortSignal,
  finish: (outcome: ApplicationOutcome) => Promise<RunSummary>,
  onIntentRecorded: () => void,
): Promise<RunSummary> {
  const seal = (bytes: Buffer) => ports.sealer.seal(bytes.toString('base64'));
  if (await hasEarlierSuccess(ports.pool, application, application.applicationId)) {
    return finish(failed('AlreadyApplied', alreadyAppliedMessage));
  }
  if (!application.url || !application.host) return finish(failed('JobNotFound', 'No apply page is known for this job post'));

  // The client's account on the posting's tenant lets the miner and the hosted form past its sign-in wall (Workday).
  const account = await findAtsAccount(ports, application.clientId, application.url);
  let questions: Question[];
  if (application.questions) {
    questions = z.array(Question).parse(JSON.parse(application.questions));
  } else {
    const post = { url: application.url, employer: application.employer ?? '', jobTitle: application.jobTitle ?? '', country: 'gb' };
    const started = performance.now();
    const mined = await ports.miner(post, signal, { account: account ?? undefined });
    signal.throwIfAborted();
    // The client sees this mining like one it asked for (`/questions/:id`), success or failure.
    await ports.recordMining({ ...post, clientId: application.clientId, jobPostId: application.jobPostId }, mined, Math.round(performance.now() - started));
    // At an account wall the miner's words say which: no account for the tenant, another host's, or a refused one.
    const wall = !mined.ok && mined.errorCode === 'LoginRequired' ? `: ${mined.detail}` : '';
    if (!mined.ok) return finish(failed(fromMiningError(mined.errorCode), `The application form could not be read (${mined.errorCode})${wall}`));
    questions = mined.form.questions;
    await storeMinedQuestions(ports.pool, application.applicationId, JSON.stringify(questions));
  }

  const { problems, answers } = validateAnswers(questions, sealed);
  if (problems.length > 0) {
    const { errorCode, message } = fromProblems(problems);
    return finish(failed(errorCode, message));
  }
  let resolved;
  try {
    resolved = await resolveFiles(ports, questions, answers, signal);
  } catch (error) {
    if (error instanceof FileProblem) return finish(failed(error.code, error.message));
    throw error;
  }

  // The client's key for this posting's ATS board decides the transport (the vendor's API).
  const credential = await findAtsCredential(ports, application.clientId, application.url);
  const outcome: SubmitOutcome = await ports.limitHost(
    application.host,
    () =>
      ports.applier(
        { url: application.url as string, questions, answers: resolved, candidate: sealed.candidate, ...(credential ? { credential } : {}), ...(account ? { account } : {}) },
        {
          beforeSubmit: async () => {
            // Its own committed statement, before the irreversible step: a crash after this line
            // can never lead to a second submission.
            const intent = await markSubmitting(ports.pool, application.applicationId);
            if (intent !== 'recorded') throw new IntentNotRecorded(application.applicationId, intent === 'other-submission');
            onIntentRecorded();
          },
        },
        signal,
      ),
    signal,
  );
  const now = (ports.now ?? (() => new Date()))();
  const transport = outcome.transport;
  switch (outcome.status) {
    case 'success':
      return finish({
        status: 'success',
        submittedAt: now,
        confirmationSealed: ports.sealer.seal(JSON.stringify(outcome.confirmation)),
        screenshotSealed: outcome.screenshot ? seal(outcome.screenshot) : null,
        transport,
      });
    case 'failed':
      return finish({ ...failed(outcome.errorCode, outcome.message, outcome.submitted ? now : null, outcome.screenshot, seal), transport });
    case 'unknown':
      return finish({ ...failed('SubmissionOutcomeUnknown', `${outcomeUnknownMessage} (${outcome.message})`, now, outcome.screenshot, seal), transport });
  }
}
