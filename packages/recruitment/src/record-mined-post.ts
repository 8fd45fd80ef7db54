import { withTransaction } from '@quarry/db';
import type { JobPostToMine, MineOutcome } from '@quarry/miner';
import type { MiningPorts } from './recruitment-ports.ts';
import { serializeResult } from './result-bodies.ts';
import { finishSubmission, insertSingleSubmission, type SubmissionOutcome } from './submissions.queries.ts';

/** What a finished mining records: the retrieval bodies of a form, or the error code. */
export function miningOutcomeOf(jobPostId: string, mined: MineOutcome, durationMs: number, succeededAt: Date): SubmissionOutcome {
  return mined.ok
    ? { kind: 'completed', ...serializeResult(jobPostId, succeededAt, mined.form), succeededAt, adapter: mined.adapter, durationMs }
    : { kind: 'failed', errorCode: mined.errorCode, adapter: mined.adapter, durationMs };
}

/**
 * Records a post mined outside the mining queue (an application's job mining a post the client
 * never mined) as the mining role records its own: a single submission of the client's post,
 * finished with the outcome in the same transaction, so `/questions/:id` and the find endpoints
 * answer for it like for any mined post. Inserted already finished, so the mining reconciler
 * never sees it unfinished and mines it a second time. API processes are told after the commit.
 */
export async function recordMinedPost(
  ports: Pick<MiningPorts, 'pool' | 'now' | 'announceOutcome'>,
  post: JobPostToMine & { clientId: string; jobPostId: string },
  mined: MineOutcome,
  durationMs: number,
): Promise<void> {
  const outcome = miningOutcomeOf(post.jobPostId, mined, durationMs, (ports.now ?? (() => new Date()))());
  const recorded = await withTransaction(ports.pool, async (client) =>
    finishSubmission(client, await insertSingleSubmission(client, post), outcome),
  );
  if (recorded) await ports.announceOutcome?.(post.clientId, post.jobPostId);
}
