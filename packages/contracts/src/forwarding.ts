import { z } from 'zod';

/**
 * Email forwarding bodies (the interface's email forwarding
 * endpoints). Addresses are compared case-insensitively, so they are lowercased on the way in.
 */
const address = (field: string) =>
  z
    .string({ error: `${field} is required and must be a string` })
    .trim()
    .max(254, `${field} must be at most 254 characters`)
    // The HTML5 pattern: zod's default wants a dotted domain, which would refuse `x@localhost`
    // (the default receiving domain) and single-label intranet domains.
    .pipe(z.email({ pattern: z.regexes.html5Email, error: `${field} must be an email address` }))
    .transform((value) => value.toLowerCase());

export const BindBody = z.object({
  recipient: address('recipient'),
  forwardsTo: address('forwardsTo'),
  keepSender: z.boolean({ error: 'keepSender must be a boolean' }).default(false),
});
export type BindBody = z.infer<typeof BindBody>;

export const UpdateBindingBody = z.object({
  recipient: address('recipient'),
  forwardsTo: address('forwardsTo'),
  // No default here (the interface gives none): absent means "leave as it is".
  keepSender: z.boolean({ error: 'keepSender must be a boolean' }).optional(),
});
export type UpdateBindingBody = z.infer<typeof UpdateBindingBody>;

export const UpdateExpiresAtBody = z.object({
  recipient: address('recipient'),
  latestDate: z
    .string({ error: 'latestDate is required: ISO 8601, YYYY-MM-DD or the long JavaScript date form' })
    .min(1, 'latestDate must not be empty')
    .max(200, 'latestDate is too long'),
});
export type UpdateExpiresAtBody = z.infer<typeof UpdateExpiresAtBody>;

export const RecipientBody = z.object({ recipient: address('recipient') });
export type RecipientBody = z.infer<typeof RecipientBody>;

export const BindingView = z.object({
  recipient: z.string(),
  forwardsTo: z.string(),
  keepSender: z.boolean(),
  expiresAt: z.string().describe('ISO 8601'),
  createdAt: z.string(),
  counters: z.object({
    received: z.number().int().describe('Messages accepted for this recipient'),
    delivered: z.number().int().describe('Messages delivered to forwardsTo'),
    bounced: z.number().int().describe('Messages that could not be delivered and were bounced (or dropped, for a null sender)'),
    lastDeliveredAt: z.string().nullable(),
  }),
});
export type BindingView = z.infer<typeof BindingView>;

export const ForwardingMessage = z.enum(['created', 'updated', 'date updated', 'deleted', 'found']);

export const ForwardingResponse = z.object({ message: ForwardingMessage, binding: BindingView });
export type ForwardingResponse = z.infer<typeof ForwardingResponse>;

/** One delivery of one stored message to one destination. Ids only: the message stays in Postgres. */
export const DeliverMailJobPayload = z.object({ deliveryId: z.uuid() });
export type DeliverMailJobPayload = z.infer<typeof DeliverMailJobPayload>;

/** Periodic housekeeping: mark expired bindings, re-enqueue deliveries whose job was lost. */
export const MailHousekeepingJobPayload = z.object({});
export type MailHousekeepingJobPayload = z.infer<typeof MailHousekeepingJobPayload>;

/** `POST /email/retrieve-outlook-account` (the interface's outlook-account endpoint). */
export const RetrieveOutlookAccountBody = z.object({
  forwardsTo: address('forwardsTo'),
  keepSender: z.boolean({ error: 'keepSender must be a boolean' }).default(false),
  alias: address('alias'),
});
export type RetrieveOutlookAccountBody = z.infer<typeof RetrieveOutlookAccountBody>;

export const OutlookAccount = z.object({ email: z.string(), password: z.string(), alias: z.string(), cookies: z.string() });
export type OutlookAccount = z.infer<typeof OutlookAccount>;

/** Operator: load mailbox accounts into the pool. */
export const LoadOutlookAccountsBody = z.object({
  accounts: z
    .array(
      z.object({
        email: address('email'),
        password: z.string({ error: 'password is required' }).min(1, 'password must not be empty'),
        cookies: z.string({ error: 'cookies must be a string' }).default(''),
      }),
    )
    .min(1, 'accounts must list at least one account')
    .max(10_000, 'accounts: at most 10000 per request'),
});

export const LoadOutlookAccountsResult = z.object({
  loaded: z.number().int().describe('Accounts added (addresses already in the pool are skipped)'),
  available: z.number().int().describe('Accounts not yet handed out'),
});
export type LoadOutlookAccountsResult = z.infer<typeof LoadOutlookAccountsResult>;
