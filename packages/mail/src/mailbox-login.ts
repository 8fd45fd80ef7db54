import { ImapFlow } from 'imapflow';
import type { ImapServer } from './mail-accounts.queries.ts';

/** What the sealed secret of a pooled account holds. */
export type AccountSecret = {
  password?: string | undefined;
  cookies: string;
  oauth2?: { tokenUrl: string; clientId: string; refreshToken: string } | undefined;
};

/** How one login authenticates: the password, or an OAuth2 access token (XOAUTH2). */
export type MailboxCredentials = { password: string } | { accessToken: string };

/** A login the server refused (wrong password, revoked token): retried with backoff, then the account is broken. */
export class MailboxLoginRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MailboxLoginRefused';
  }
}

type ImapError = Error & { authenticationFailed?: boolean; responseText?: string; response?: string; code?: string; reason?: string };

/** The server's own words where it gave any (`NO [AUTHENTICATIONFAILED] Authentication failed.`), else what failed. */
export function describeImapError(error: unknown): string {
  const failure = error as ImapError;
  const answer = failure.responseText ?? failure.reason;
  const text = answer ? `${failure.message}: ${answer}` : (failure.message ?? String(error));
  return text.slice(0, 500);
}

export const isLoginRefused = (error: unknown) =>
  error instanceof MailboxLoginRefused || (error as ImapError | null)?.authenticationFailed === true;

export function createImapClient(
  account: { email: string; imap: ImapServer },
  credentials: MailboxCredentials,
  options: { socketTimeoutMs?: number } = {},
): ImapFlow {
  const user = account.imap.user ?? account.email;
  return new ImapFlow({
    host: account.imap.host,
    port: account.imap.port,
    secure: account.imap.secure,
    auth: 'accessToken' in credentials ? { user, accessToken: credentials.accessToken } : { user, pass: credentials.password },
    logger: false,
    // IDLE is entered by the watcher itself, only when the server offers it.
    disableAutoIdle: true,
    connectionTimeout: 30_000,
    greetingTimeout: 15_000,
    ...(options.socketTimeoutMs ? { socketTimeout: options.socketTimeoutMs } : {}),
  });
}

/** Logs in once and out again: null when the mailbox can be read, else the server's answer. */
export async function checkMailboxLogin(
  account: { email: string; imap: ImapServer },
  credentials: MailboxCredentials,
): Promise<string | null> {
  const client = createImapClient(account, credentials);
  client.on('error', () => {});
  try {
    await client.connect();
    await client.mailboxOpen('INBOX', { readOnly: true });
    return null;
  } catch (error) {
    return describeImapError(error);
  } finally {
    await client.logout().catch(() => client.close());
  }
}
