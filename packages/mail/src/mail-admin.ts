import type { MailDeliverySummaryView } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { summarizeMailDeliveries } from './mail-admin.queries.ts';

/** Operators' view of forwarding delivery across all clients: totals and the 50 next deferred deliveries. */
export async function describeMailDeliveries(ports: { db: Queryable }): Promise<MailDeliverySummaryView> {
  const summary = await summarizeMailDeliveries(ports.db, 50);
  return {
    ...summary,
    oldestPendingAt: summary.oldestPendingAt?.toISOString() ?? null,
    deferredDeliveries: summary.deferredDeliveries.map((delivery) => ({
      ...delivery,
      nextAttemptAt: delivery.nextAttemptAt.toISOString(),
    })),
  };
}
