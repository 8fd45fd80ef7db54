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
  createdAt: z.iso.datetime(),
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

/** How the account's mailbox is read; Outlook.com's IMAP server unless said otherwise. */
const ImapServer = z.object({
  host: z
    .string({ error: 'imap.host must be a host name' })
    .trim()
    .min(1, 'imap.host must not be empty')
    .max(253, 'imap.host is too long')
    .default('outlook.office365.com'),
  port: z
    .number({ error: 'imap.port must be a number' })
    .int('imap.port must be an integer')
    .min(1, 'imap.port must be 1-65535')
    .max(65_535, 'imap.port must be 1-65535')
    .default(993),
  secure: z.boolean({ error: 'imap.secure must be a boolean' }).default(true),
  /** The login name when it is not the address. */
  user: z.string({ error: 'imap.user must be a string' }).min(1, 'imap.user must not be empty').optional(),
});

/** XOAUTH2 instead of the password: the refresh token is exchanged at tokenUrl for access tokens. */
const OAuth2Grant = z.object({
  tokenUrl: z.url({ protocol: /^https?$/, error: 'oauth2.tokenUrl must be an http(s) URL' }),
  clientId: z.string({ error: 'oauth2.clientId is required' }).min(1, 'oauth2.clientId must not be empty'),
  refreshToken: z.string({ error: 'oauth2.refreshToken is required' }).min(1, 'oauth2.refreshToken must not be empty'),
});

export const PoolAccountInput = z
  .object({
    email: address('email'),
    password: z.string({ error: 'password must be a string' }).min(1, 'password must not be empty').optional(),
    cookies: z.string({ error: 'cookies must be a string' }).default(''),
    imap: ImapServer.default({ host: 'outlook.office365.com', port: 993, secure: true }),
    oauth2: OAuth2Grant.optional(),
  })
  .refine((account) => account.password !== undefined || account.oauth2 !== undefined, {
    message: 'password is required (or oauth2)',
    path: ['password'],
  });
export type PoolAccountInput = z.infer<typeof PoolAccountInput>;

/** Operator: load mailbox accounts into the pool. */
export const LoadOutlookAccountsBody = z.object({
  accounts: z.array(PoolAccountInput).min(1, 'accounts must list at least one account').max(10_000, 'accounts: at most 10000 per request'),
});

export const LoadOutlookAccountsResult = z.object({
  loaded: z.number().int().describe('Accounts added (addresses already in the pool are skipped, broken ones replaced)'),
  available: z.number().int().describe('Accounts not yet handed out'),
  refused: z
    .array(z.object({ email: z.string(), error: z.string().describe("Why it cannot be read: the IMAP server's answer") }))
    .describe('Accounts not loaded because logging in to their mailbox failed'),
});
export type LoadOutlookAccountsResult = z.infer<typeof LoadOutlookAccountsResult>;
