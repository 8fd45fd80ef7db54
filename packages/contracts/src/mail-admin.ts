import { z } from 'zod';

/** Operators' view of forwarding delivery (`GET /v1/admin/mail/deliveries`); times are ISO 8601. */
export const MailDeliverySummaryView = z.object({
  queued: z.number().int(),
  deferred: z.number().int(),
  oldestPendingAt: z.string().nullable(),
  received: z.number().int(),
  delivered: z.number().int(),
  bounced: z.number().int(),
  deferredDeliveries: z.array(z.object({
    deliveryId: z.uuid(), forwardsTo: z.string(), attempts: z.number().int(), nextAttemptAt: z.string(), lastError: z.string().nullable(),
  })),
});
export type MailDeliverySummaryView = z.infer<typeof MailDeliverySummaryView>;
