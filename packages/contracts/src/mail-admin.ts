import { z } from 'zod';

/** Operators' view of forwarding delivery (`GET /v1/admin/mail/deliveries`); times are ISO 8601. */
export const MailDeliverySummaryView = z.object({
  queued: z.number().int(),
  deferred: z.number().int(),
  oldestPendingAt: z.string().nullable(),
  received: z.number().int(),
  delivered: z.number().int(),
  bounced: z.number().int(),
  deferredDeliveries: z.array(
    z.object({
      deliveryId: z.uuid(),
      forwardsTo: z.string(),
      attempts: z.number().int(),
      nextAttemptAt: z.string(),
      lastError: z.string().nullable(),
    }),
  ),
});
export type MailDeliverySummaryView = z.infer<typeof MailDeliverySummaryView>;

/** Operators' view of the pooled mailbox accounts (`GET /v1/admin/mail/outlook-accounts`). */
export const MailboxAccountView = z.object({
  email: z.string(),
  /** ok; failing (a login failed, tried again later); broken (never watched nor handed out again until loaded anew). */
  state: z.enum(['ok', 'failing', 'broken']),
  assigned: z.boolean(),
  alias: z.string().nullable(),
  forwardsTo: z.string().nullable(),
  imap: z.object({ host: z.string(), port: z.number().int(), secure: z.boolean() }),
  auth: z.enum(['password', 'oauth2']),
  forwarded: z.number().int(),
  lastMessageAt: z.string().nullable(),
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
  loginFailures: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  /** The mail process watching it now, if any. */
  watcher: z.string().nullable(),
  /** How its INBOX was followed after the last login: IMAP IDLE where the server offers it, else polling; null before any login. */
  mode: z.enum(['idle', 'poll']).nullable(),
});
export type MailboxAccountView = z.infer<typeof MailboxAccountView>;

export const MailboxAccountsView = z.object({
  counts: z.object({ available: z.number().int(), watched: z.number().int(), failing: z.number().int(), broken: z.number().int() }),
  accounts: z.array(MailboxAccountView),
});
export type MailboxAccountsView = z.infer<typeof MailboxAccountsView>;
