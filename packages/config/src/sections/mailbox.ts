import { z } from 'zod';
import { positiveMs, type VariablesOf } from './section.ts';

export const mailboxVariables = {
  // Watching handed-out pool accounts over IMAP; README "Email forwarding" documents each.
  MAILBOX_WATCH: z.enum(['true', 'false']).default('true'),
  MAILBOX_LEASE_MS: z.coerce.number().int().min(200).default(30_000),
  MAILBOX_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(2000),
  MAILBOX_POLL_MS: z.coerce.number().int().min(100).default(60_000),
  MAILBOX_FOLDERS: z
    .string()
    .default('INBOX,Junk')
    .refine((value) => value.split(',').every((folder) => folder.trim().length > 0), 'must be comma-separated folder names'),
  MAILBOX_LOGIN_RETRY_MS: positiveMs.default(60_000),
  MAILBOX_MAX_LOGIN_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
  MAILBOX_SEEN_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
};

/** The mail role's watching of handed-out pool accounts over IMAP. */
export const readMailbox = (vars: VariablesOf<typeof mailboxVariables>) => ({
  mailbox: {
    watch: vars.MAILBOX_WATCH === 'true',
    leaseMs: vars.MAILBOX_LEASE_MS,
    maxConnections: vars.MAILBOX_MAX_CONNECTIONS,
    pollMs: vars.MAILBOX_POLL_MS,
    folders: vars.MAILBOX_FOLDERS.split(',').map((folder) => folder.trim()),
    loginRetryMs: vars.MAILBOX_LOGIN_RETRY_MS,
    maxLoginFailures: vars.MAILBOX_MAX_LOGIN_FAILURES,
    /** How long the keys of taken messages are kept; older mail is never taken. */
    seenRetentionMs: vars.MAILBOX_SEEN_RETENTION_DAYS * 86_400_000,
  },
});
