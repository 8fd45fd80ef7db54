import { sealedColumns } from '@quarry/keyring';
import type { SubmitOutcome } from '@quarry/hosted-form-apply';
import { Question, type ApplicationErrorCode, type MiningErrorCode } from '@quarry/contracts';
import { z } from 'zod';
import { alreadyAppliedMessage } from './already-applied.ts';
import { validateAnswers, type AnswerProblem } from './answer-validation.ts';
import { findAtsAccount, findAtsCredential } from './ats-credentials.ts';
import type { RunPorts } from './applications-ports.ts';
import { randomUUID } from 'node:crypto';
import { isStoreOutage, RunLater } from '@quarry/jobs';
import {
  claimApplication,
  finishApplication,
  hasEarlierSuccess,
  markSubmitting,
  releaseApplicationLease,
  storeMinedQuestions,
  type ApplicationOutcome,
  type ApplicationToRun,
} from './applications.queries.ts';
import { keepApplicationLease } from './run-lease.ts';
import { FileProblem, resolveFiles } from './fetch-files.ts';
import { openApplication, type SealedApplication } from './sealed-application.ts';

/** What the job reports to its log: ids and codes only, never the candidate's data. */
export type RunSummary = { applicationId: string; status: 'skipped' | 'success' | 'failed'; errorCode?: string };

class IntentNotRecorded extends Error {
  readonly otherSubmission: boolean;
  constructor(applicationId: string, otherSubmission: boolean) {
    super(
      otherSubmission
        ? `another application of this candidate to this job is being submitted or succeeded`
        : `application ${applicationId} is no longer processing; not submitting it`,
    );
    this.name = 'IntentNotRecorded';
    this.otherSubmission = otherSubmission;
  }
}

const outcomeUnknownMessage =
  'The form may have been submitted: the run stopped after the final step began and its result could not be confirmed. ' +
  "It is not retried; check with the employer (or the candidate's inbox) before applying again.";

/** Mining failures that say something about the post itself keep their meaning for an application. */
function fromMiningError(code: MiningErrorCode): ApplicationErrorCode {
  if (code === 'JobNotFound' || code === 'JobExpired' || code === 'BotDetection') return code;
  return 'ApplicationFailed';
}

function fromProblems(problems: AnswerProblem[]): { errorCode: ApplicationErrorCode; message: string } {
  const errorCode: ApplicationErrorCode = problems.some((problem) => problem.kind === 'file-type')
    ? 'FileTypeNotSupported'
    : 'MandatoryQuestionsNotAnswered';
  return { errorCode, message: problems.map((problem) => problem.message).join('; ') };
}

const failed = (
  errorCode: ApplicationErrorCode,
  message: string,
  submittedAt: Date | null = null,
  screenshot?: Buffer,
  seal?: (bytes: Buffer) => Buffer,
): ApplicationOutcome => ({
  status: 'failed',
  errorCode,
  message,
  submittedAt,
  screenshotSealed: screenshot && seal ? seal(screenshot) : null,
});

/** How long a definite outcome is kept trying while the database is unreachable (as a mail delivery's 250, ADR 0011). */
const outcomePatienceMs = 2 * 60_000;
/** One attempt to record it; past this its connection is dropped and a new one tried. */
const outcomeAttemptMs = 5_000;

async function recordDefinitely(record: () => Promise<boolean>): Promise<boolean> {
  const giveUpAt = Date.now() + outcomePatienceMs;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await record();
    } catch (error) {
      if (!isStoreOutage(error) || Date.now() >= giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, 2_000)));
    }
  }
}

/** How long a run's lease on an application lasts without renewal (renewed every third of it). */
const defaultLeaseMs = 30_000;

/**
 * The `applications.apply` job: runs one application at most once against the employer's site.
 * A run first takes the application's lease (owner and expiry, renewed while it runs); a run that
 * finds another's live lease waits for it (`RunLater`) rather than taking over. The intent to
 * submit is committed (`submitting`) by the lease's holder only, before the engine's irreversible
 * step; a run that finds it recorded with the lease lapsed never calls the engine again and ends
 * `SubmissionOutcomeUnknown`, which the first run's definite answer, if it ever comes, replaces.
 * Failures are final (no automatic retry); only our own infrastructure failing before that point
 * makes the queue run the job again.
 */
export async function runApplication(
  ports: RunPorts,
  applicationId: string,
  context: {
    signal: AbortSignal;
    finalAttempt: boolean;
    /** Aborted when the queue's lock on this job was lost (the job may run elsewhere now). */
    lockLost?: AbortSignal;
  },
): Promise<RunSummary> {
  const owner = randomUUID();
  const leaseMs = ports.leaseMs ?? defaultLeaseMs;
  const claim = await claimApplication(ports.pool, applicationId, owner, leaseMs);
  if (claim.kind === 'ended' || claim.kind === 'missing') return { applicationId, status: 'skipped' };
  // Another run holds it (a paused worker, or one whose lock lapsed while it still runs): wait for its lease.
  if (claim.kind === 'held')
    throw new RunLater(
      Math.max(1_000, claim.until.getTime() - Date.now() + 500 + Math.round(Math.random() * 1_000)),
      `application ${applicationId} is held by another run`,
    );
  const application = claim.application;

  const lease = keepApplicationLease(ports.pool, applicationId, owner, leaseMs);
  let intentRecorded = false;
  // The engine stops when the job does (timeout, shutdown), and when this run lost the application,
  // but only before the intent: after it, the run goes on to read the site's answer, which replaces
  // whatever another run recorded without knowing it.
  const engine = new AbortController();
  const stop = (reason: unknown, onlyBeforeIntent: boolean) => {
    if (!(onlyBeforeIntent && intentRecorded)) engine.abort(reason);
  };
  const onJobAbort = () => stop(context.signal.reason, context.lockLost?.aborted === true);
  const onLeaseLost = () => stop(lease.lost.reason, true);
  context.signal.addEventListener('abort', onJobAbort, { once: true });
  lease.lost.addEventListener('abort', onLeaseLost, { once: true });
  if (context.signal.aborted) onJobAbort();

  let finished = false;
  const finish = async (outcome: ApplicationOutcome, definite = false): Promise<RunSummary> => {
    const options = { owner, definite, afterOwnIntent: definite && intentRecorded };
    // A definite answer read from the site exists nowhere else: while the database cannot take it
    // (stopped, or this worker cut off from it), it is kept trying, each attempt on a fresh
    // connection, rather than left for a next run that could only say "unknown".
    const recorded = definite
      ? await recordDefinitely(() => finishApplication(ports.pool, applicationId, outcome, { ...options, withinMs: outcomeAttemptMs }))
      : await finishApplication(ports.pool, applicationId, outcome, options);
    finished = true;
    if (!recorded) return { applicationId, status: 'skipped' };
    return { applicationId, status: outcome.status, ...(outcome.status === 'failed' ? { errorCode: outcome.errorCode } : {}) };
  };
  try {
    if (application.state === 'submitting') return await finish(failed('SubmissionOutcomeUnknown', outcomeUnknownMessage));
    if (!application.sealed) return await finish(failed('ApplicationFailed', 'The application data is no longer kept'));
    try {
      return await submit(
        ports,
        { application, owner },
        openApplication(ports.sealer, application.applicationId, application.sealed),
        engine.signal,
        finish,
        () => {
          intentRecorded = true;
        },
      );
    } catch (error) {
      // Once the intent is recorded, any end but a recorded outcome is an unknown one: the form may
      // be in. A hand-back at shutdown is re-run, and that run reports it the same way.
      if (intentRecorded && !engine.signal.aborted) return await finish(failed('SubmissionOutcomeUnknown', outcomeUnknownMessage));
      if (error instanceof IntentNotRecorded && error.otherSubmission) {
        return await finish(
          failed('AlreadyApplied', 'Another application of this candidate to this job was submitted through this service'),
        );
      }
      // A run that lost the application writes nothing: the run that holds it now decides.
      if (lease.lost.aborted && !intentRecorded) throw lease.lost.reason;
      // Our stores away before the intent is nobody's failure: nothing was sent, and the job waits
      // for them (or, its attempts spent on them, the reconciler starts it afresh).
      if (isStoreOutage(error)) throw error;
      if (!context.finalAttempt || engine.signal.aborted) throw error;
      return await finish(failed('ApplicationFailed', 'The service could not run this application; nothing was submitted'));
    }
  } finally {
    lease.stop();
    context.signal.removeEventListener('abort', onJobAbort);
    lease.lost.removeEventListener('abort', onLeaseLost);
    // A run that ends without an outcome lets the next run start at once instead of waiting out its lease.
    if (!finished) await releaseApplicationLease(ports.pool, applicationId, owner).catch(() => undefined);
  }
}

async function submit(
  ports: RunPorts,
  { application, owner }: { application: ApplicationToRun; owner: string },
  sealed: SealedApplication,
  signal: AbortSignal,
  finish: (outcome: ApplicationOutcome, definite?: boolean) => Promise<RunSummary>,
  onIntentRecorded: () => void,
): Promise<RunSummary> {
  const seal = (bytes: Buffer) =>
    ports.sealer.seal(sealedColumns.applicationScreenshot, application.applicationId, bytes.toString('base64'));
  let intended = false;
  if (await hasEarlierSuccess(ports.pool, application, application.applicationId)) {
    return finish(failed('AlreadyApplied', alreadyAppliedMessage));
  }
  if (!application.url || !application.host) return finish(failed('JobNotFound', 'No apply page is known for this job post'));

  // The client's account on the posting's tenant lets the miner and the hosted form past its sign-in wall (Workday).
  const account = await findAtsAccount(ports, application.clientId, application.url);
  // The client's key for this posting's ATS board decides the transport (the vendor's API), and
  // lets the miner read what the vendor serves only to it (SmartRecruiters' screening questions).
  const credential = await findAtsCredential(ports, application.clientId, application.url);
  let questions: Question[];
  if (application.questions) {
    questions = z.array(Question).parse(JSON.parse(application.questions));
  } else {
    const post = { url: application.url, employer: application.employer ?? '', jobTitle: application.jobTitle ?? '', country: 'gb' };
    const started = performance.now();
    const mined = await ports.miner(post, signal, { account: account ?? undefined, credential: credential ?? undefined });
    signal.throwIfAborted();
    // The client sees this mining like one it asked for (`/questions/:id`), success or failure.
    await ports.recordMining(
      { ...post, clientId: application.clientId, jobPostId: application.jobPostId },
      mined,
      Math.round(performance.now() - started),
    );
    // At an account wall the miner's words say which: no account for the tenant, another host's, or a refused one.
    const wall = !mined.ok && mined.errorCode === 'LoginRequired' ? `: ${mined.detail}` : '';
    if (!mined.ok)
      return finish(failed(fromMiningError(mined.errorCode), `The application form could not be read (${mined.errorCode})${wall}`));
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

  const outcome: SubmitOutcome = await ports.limitHost(
    application.host,
    () =>
      ports.applier(
        {
          url: application.url as string,
          questions,
          answers: resolved,
          candidate: sealed.candidate,
          ...(credential ? { credential } : {}),
          ...(account ? { account } : {}),
        },
        {
          beforeSubmit: async () => {
            // Its own committed statement, before the irreversible step: a crash after this line
            // can never lead to a second submission.
            const intent = await markSubmitting(ports.pool, application.applicationId, owner);
            if (intent !== 'recorded') throw new IntentNotRecorded(application.applicationId, intent === 'other-submission');
            intended = true;
            onIntentRecorded();
          },
        },
        signal,
      ),
    signal,
  );
  // An engine told to stop before the intent (the job's lock lost, the run's lease lost, shutdown)
  // reports what it saw of a page it was pulled away from: not the site's answer. Nothing was
  // sent; the run that holds the application now decides.
  if (signal.aborted && !intended) throw signal.reason;
  const now = (ports.now ?? (() => new Date()))();
  const transport = outcome.transport;
  // What the site or vendor said is definite: it replaces an unknown outcome another run recorded meanwhile.
  switch (outcome.status) {
    case 'success':
      return finish(
        {
          status: 'success',
          submittedAt: now,
          confirmationSealed: ports.sealer.seal(
            sealedColumns.applicationConfirmation,
            application.applicationId,
            JSON.stringify(outcome.confirmation),
          ),
          screenshotSealed: outcome.screenshot ? seal(outcome.screenshot) : null,
          transport,
        },
        true,
      );
    case 'failed':
      return finish(
        { ...failed(outcome.errorCode, outcome.message, outcome.submitted ? now : null, outcome.screenshot, seal), transport },
        true,
      );
    case 'unknown':
      return finish({
        ...failed('SubmissionOutcomeUnknown', `${outcomeUnknownMessage} (${outcome.message})`, now, outcome.screenshot, seal),
        transport,
      });
  }
}
