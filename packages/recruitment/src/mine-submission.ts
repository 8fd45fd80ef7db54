import { withTransaction } from '@quarry/db';
import { finishSubmission, startSubmission, type SubmissionOutcome } from './submissions.queries.ts';
import { miningOutcomeOf } from './record-mined-post.ts';
import { pauseBatch, recentBatchSuccessRate } from './batches.queries.ts';
import { isStoreOutage } from '@quarry/jobs';
import { admitBatch } from './admit-batch.ts';
import type { MiningPorts } from './recruitment-ports.ts';

/**
 * The worker side of one submission: mine, record the outcome once, then keep its batch moving
 * (auto-pause on a falling success rate, or admit the next rows). Safe to run again after a
 * crash: a finished submission is skipped, an interrupted one is mined again.
 */
export async function mineSubmission(
  ports: MiningPorts,
  submissionId: string,
  context: { signal: AbortSignal; finalAttempt: boolean },
): Promise<'mined' | 'skipped'> {
  const submission = await startSubmission(ports.pool, submissionId);
  if (!submission) return 'skipped';
  const started = performance.now();
  let outcome: SubmissionOutcome;
  try {
    // Mining jobs are per client: the submission names the client whose account the posting may need.
    const account = (await ports.findAccount?.(submission.clientId, submission.url)) ?? undefined;
    const credential = (await ports.findCredential?.(submission.clientId, submission.url)) ?? undefined;
    const mined = await ports.miner(submission, context.signal, { account, credential });
    // An abort (shutdown hand-back, timeout) is not the website's doing: never record it.
    if (context.signal.aborted) throw context.signal.reason;
    if (!mined.ok)
      ports.logFailure?.({
        jobPostId: submission.jobPostId,
        submissionId,
        errorCode: mined.errorCode,
        adapter: mined.adapter,
        detail: mined.detail,
      });
    outcome = miningOutcomeOf(submission.jobPostId, mined, Math.round(performance.now() - started), (ports.now ?? (() => new Date()))());
  } catch (error) {
    // Our own failure. Retried by the queue; on the last attempt the post is reported failed
    // rather than left processing forever. A store outage is nobody's failure: never recorded.
    if (!context.finalAttempt || context.signal.aborted || isStoreOutage(error)) throw error;
    outcome = { kind: 'failed', errorCode: 'GenericWebsiteError', adapter: null, durationMs: Math.round(performance.now() - started) };
  }
  const recorded = await withTransaction(ports.pool, (client) => finishSubmission(client, submissionId, outcome));
  // After the commit, so an API process that drops its copy reads the new answer, never the old.
  if (recorded) await ports.announceOutcome?.(submission.clientId, submission.jobPostId);
  if (recorded?.batchId && !recorded.finishedBatch) await keepBatchMoving(ports, recorded.batchId);
  return 'mined';
}

async function keepBatchMoving(ports: MiningPorts, batchId: string): Promise<void> {
  const { window, minSuccessRate } = ports.settings.autoPause;
  const rate = await recentBatchSuccessRate(ports.pool, batchId, window);
  if (rate !== null && rate < minSuccessRate) {
    const reason = `auto: success rate ${(rate * 100).toFixed(0)}% over the last ${window} job posts is below ${(minSuccessRate * 100).toFixed(0)}%`;
    if (await pauseBatch(ports.pool, batchId, reason)) await ports.queue.pauseBatchQueue(batchId);
    return;
  }
  await admitBatch(ports, batchId);
}
