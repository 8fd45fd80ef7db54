import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, describeIssues, RequestCanaryBody, validationError, type CanaryJobPayload, type CanaryView } from '@quarry/contracts';
import { type Queryable } from '@quarry/db';
import type { JobHandler, JobPayload } from '@quarry/jobs';
import { completeCanary, findCanary, insertCanary, startCanaryRun, type CanaryRow } from './canaries.queries.ts';

/** The producer side of the job queue, as this use case needs it; the role wires it from the job catalog. */
export type EnqueueCanary = (payload: JobPayload<'system.canary'>, options: { jobId: string }) => Promise<unknown>;

function toView(row: CanaryRow): CanaryView {
  return {
    canaryId: row.canaryId,
    state: row.state,
    holdMs: row.holdMs,
    runs: row.runs,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    completedBy: row.completedBy,
  };
}

/** Records a canary and enqueues it; answered only once both are durable. */
export async function requestCanary(
  ports: { db: Queryable; enqueue: EnqueueCanary },
  clientId: string,
  body: unknown,
): Promise<CanaryView> {
  const parsed = RequestCanaryBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const canaryId = randomUUID();
  const row = await insertCanary(ports.db, { canaryId, clientId, holdMs: parsed.data.holdMs });
  await ports.enqueue({ canaryId }, { jobId: canaryId });
  return toView(row);
}

export async function getCanary(ports: { db: Queryable }, clientId: string, canaryId: string): Promise<CanaryView> {
  const row = /^[0-9a-f-]{36}$/i.test(canaryId) ? await findCanary(ports.db, clientId, canaryId) : null;
  if (!row) throw new AppError('NotFound', `canary ${canaryId} not found`);
  return toView(row);
}

/**
 * The worker side. Idempotent: a run after completion does nothing, and a run restarted after a
 * crash simply holds again and completes once.
 */
async function runCanary(ports: { db: Queryable; workerId: string }, payload: CanaryJobPayload, signal: AbortSignal): Promise<void> {
  const row = await startCanaryRun(ports.db, payload.canaryId);
  if (!row) return;
  if (row.holdMs > 0) await sleep(row.holdMs, undefined, { signal });
  await completeCanary(ports.db, payload.canaryId, ports.workerId);
}

/** `system.canary`'s handler for a worker role that takes the canary. */
export function canaryJobHandler(ports: { db: Queryable; workerId: string }): JobHandler<'system.canary'> {
  return (payload, { signal }) => runCanary(ports, payload, signal);
}
