import type { Queryable } from '@quarry/db';

export type MailDeliverySummary = {
  queued: number;
  deferred: number;
  oldestPendingAt: Date | null;
  received: number;
  delivered: number;
  bounced: number;
  deferredDeliveries: Array<{ deliveryId: string; forwardsTo: string; attempts: number; nextAttemptAt: Date; lastError: string | null }>;
};

/** Operators' view of forwarding delivery across all clients. */
export async function summarizeMailDeliveries(db: Queryable, limit: number): Promise<MailDeliverySummary> {
  const totals = await db.query<{
    queued: string;
    deferred: string;
    oldest: Date | null;
    received: string;
    delivered: string;
    bounced: string;
  }>(
    `SELECT
       (SELECT count(*) FROM mail_deliveries WHERE state = 'queued') AS queued,
       (SELECT count(*) FROM mail_deliveries WHERE state = 'deferred') AS deferred,
       (SELECT min(created_at) FROM mail_deliveries WHERE state IN ('queued', 'deferred')) AS oldest,
       (SELECT coalesce(sum(received), 0) FROM mail_binding_counters) AS received,
       (SELECT coalesce(sum(delivered), 0) FROM mail_binding_counters) AS delivered,
       (SELECT coalesce(sum(bounced), 0) FROM mail_binding_counters) AS bounced`,
  );
  const deferred = await db.query<{
    delivery_id: string;
    forwards_to: string;
    attempts: number;
    next_attempt_at: Date;
    last_error: string | null;
  }>(
    `SELECT delivery_id, forwards_to, attempts, next_attempt_at, last_error FROM mail_deliveries
     WHERE state = 'deferred' ORDER BY next_attempt_at LIMIT $1`,
    [limit],
  );
  const row = totals.rows[0];
  return {
    queued: Number(row?.queued ?? 0),
    deferred: Number(row?.deferred ?? 0),
    oldestPendingAt: row?.oldest ?? null,
    received: Number(row?.received ?? 0),
    delivered: Number(row?.delivered ?? 0),
    bounced: Number(row?.bounced ?? 0),
    deferredDeliveries: deferred.rows.map((delivery) => ({
      deliveryId: delivery.delivery_id,
      forwardsTo: delivery.forwards_to,
      attempts: delivery.attempts,
      nextAttemptAt: delivery.next_attempt_at,
      lastError: delivery.last_error,
    })),
  };
}
