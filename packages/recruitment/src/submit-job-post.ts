import { ensureCallbackSecret, vetCallbackUrl } from '@quarry/callbacks';
import { describeIssues, MineJobPostBody, validationError } from '@quarry/contracts';
import { withTransaction } from '@quarry/db';
import { insertSingleSubmission } from './submissions.queries.ts';
import { isStoreOutage } from '@quarry/jobs';
import type { CallbackIntakePorts, RecruitmentPorts } from './recruitment-ports.ts';

/** A request's callbackUrl needs the intake's callback ports; without them it is refused, never ignored. */
export function callbackPortsFor(ports: { callbacks?: CallbackIntakePorts | undefined }, field = 'callbackUrl'): CallbackIntakePorts {
  if (!ports.callbacks) throw validationError([`${field}: callbacks are not taken here`]);
  return ports.callbacks;
}

/**
 * POST /v1/recruitment/job-posts/mine/: durable in Postgres, then queued; answered after both.
 * With Redis away the post is still accepted: it is in Postgres, and the mining workers'
 * reconciler queues it once Redis is back (reviveStrandedRows). With `callbackUrl` (checked
 * against the SSRF policy first) the outcome is POSTed there; the client's first one creates its
 * callback secret, in the same transaction, and the answer shows it once.
 */
export async function submitJobPost(
  ports: Pick<RecruitmentPorts, 'pool' | 'queue' | 'callbacks'>,
  clientId: string,
  body: unknown,
): Promise<{ jobPostId: string; status: 'queued'; webhookSecret?: string }> {
  const parsed = MineJobPostBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const { callbackUrl, ...post } = parsed.data;
  let webhookSecret: string | undefined;
  let submissionId: string;
  if (callbackUrl) {
    const callbacks = callbackPortsFor(ports);
    await vetCallbackUrl(callbacks.checkUrl, callbackUrl);
    submissionId = await withTransaction(ports.pool, async (client) => {
      webhookSecret = await ensureCallbackSecret(client, callbacks.sealer, clientId);
      return insertSingleSubmission(client, { clientId, ...post, callbackUrl });
    });
  } else {
    submissionId = await insertSingleSubmission(ports.pool, { clientId, ...post });
  }
  try {
    await ports.queue.enqueueSingle(submissionId);
  } catch (error) {
    if (!isStoreOutage(error)) throw error;
  }
  return { jobPostId: post.jobPostId, status: 'queued', ...(webhookSecret ? { webhookSecret } : {}) };
}
