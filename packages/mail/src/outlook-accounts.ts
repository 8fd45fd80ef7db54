import { sealedColumns, type ColumnSealer } from '@quarry/keyring';
import {
  AppError,
  describeIssues,
  LoadOutlookAccountsBody,
  RetrieveOutlookAccountBody,
  validationError,
  type LoadOutlookAccountsResult,
  type OutlookAccount,
  type PoolAccountInput,
} from '@quarry/contracts';
import { withTransaction, type Pool } from '@quarry/db';
import {
  assignFreeOutlookAccount,
  countFreeOutlookAccounts,
  insertOutlookAccounts,
  type ImapServer,
  type NewPoolAccount,
} from './mail-accounts.queries.ts';
import { resolveCredentials } from './mailbox-credentials.ts';
import { checkMailboxLogin, describeImapError, type AccountSecret, type MailboxCredentials } from './mailbox-login.ts';
import { insertOrReplaceExpiredBinding } from './bindings.queries.ts';
import { domainOf, isReceivingDomain } from './addresses.ts';
import { defaultExpiry } from './latest-date.ts';

/** Sealing is the caller's (the keyring's); this package only sees the two functions. */
export type AccountPorts = {
  pool: Pool;
  seal: ColumnSealer['seal'];
  open: ColumnSealer['open'];
  domains: readonly string[];
  now: () => Date;
  /** Logs in to a mailbox once: null when it can be read, else the server's answer (`checkMailboxLogin`). */
  checkLogin?: (account: { email: string; imap: ImapServer }, credentials: MailboxCredentials) => Promise<string | null>;
  fetch?: typeof fetch;
};

/** Logins checked at once while loading: enough to load thousands in minutes without hammering one server. */
const loadCheckConcurrency = 16;

type Checked = { account: NewPoolAccount } | { refused: { email: string; error: string } };

/**
 * Operator: adds accounts to the pool, password, cookies and OAuth2 grant sealed together. Each
 * account is logged in to once first; one whose mailbox cannot be read is left out and named with
 * the server's answer, the others are loaded.
 */
export async function loadOutlookAccounts(ports: AccountPorts, body: unknown): Promise<LoadOutlookAccountsResult> {
  const parsed = LoadOutlookAccountsBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const checkLogin = ports.checkLogin ?? checkMailboxLogin;
  const check = async (input: PoolAccountInput): Promise<Checked> => {
    const imap = { host: input.imap.host, port: input.imap.port, secure: input.imap.secure, user: input.imap.user ?? null };
    const secret: AccountSecret = { password: input.password, cookies: input.cookies, oauth2: input.oauth2 };
    const sealedSecret = ports.seal(sealedColumns.mailboxSecret, input.email, JSON.stringify(secret));
    try {
      const { credentials, refreshed } = await resolveCredentials(ports, {
        email: input.email,
        sealedSecret,
        sealedAccessToken: null,
        accessTokenExpiresAt: null,
      });
      const error = await checkLogin({ email: input.email, imap }, credentials);
      if (error) return { refused: { email: input.email, error } };
      return {
        account: {
          email: input.email,
          imap,
          sealedSecret: refreshed?.sealedSecret ?? sealedSecret,
          sealedAccessToken: refreshed?.sealedAccessToken ?? null,
          accessTokenExpiresAt: refreshed?.expiresAt ?? null,
        },
      };
    } catch (error) {
      return { refused: { email: input.email, error: describeImapError(error) } };
    }
  };
  const checked = await mapLimited(parsed.data.accounts, loadCheckConcurrency, check);
  const loaded = await insertOutlookAccounts(
    ports.pool,
    checked.flatMap((result) => ('account' in result ? [result.account] : [])),
  );
  return {
    loaded,
    available: await countFreeOutlookAccounts(ports.pool),
    refused: checked.flatMap((result) => ('refused' in result ? [result.refused] : [])),
  };
}

async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/**
 * Hands one unused account to the client and binds its alias to `forwardsTo`, both or neither
 * (one transaction): an alias already bound or an empty pool leaves everything as it was.
 */
export async function retrieveOutlookAccount(ports: AccountPorts, clientId: string, body: unknown): Promise<OutlookAccount> {
  const parsed = RetrieveOutlookAccountBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const input = parsed.data;
  const problems: string[] = [];
  if (!isReceivingDomain(ports.domains, input.alias)) {
    problems.push(`alias: ${domainOf(input.alias)} is not a domain this service receives mail for (${ports.domains.join(', ')})`);
  }
  if (isReceivingDomain(ports.domains, input.forwardsTo))
    problems.push(`forwardsTo: must not be on a domain this service receives mail for (${domainOf(input.forwardsTo)})`);
  if (problems.length > 0) throw validationError(problems);

  const account = await withTransaction(ports.pool, async (client) => {
    const now = ports.now();
    const binding = await insertOrReplaceExpiredBinding(client, {
      recipient: input.alias,
      clientId,
      forwardsTo: input.forwardsTo,
      keepSender: input.keepSender,
      expiresAt: defaultExpiry(now),
      now,
    });
    if (!binding) throw new AppError('BindingAlreadyExists', `${input.alias} already has an active binding`);
    const assigned = await assignFreeOutlookAccount(client, {
      clientId,
      alias: input.alias,
      forwardsTo: input.forwardsTo,
      keepSender: input.keepSender,
    });
    if (!assigned) throw new AppError('AccountPoolExhausted');
    return assigned;
  });
  const secret = JSON.parse(ports.open(sealedColumns.mailboxSecret, account.email, account.sealedSecret)) as AccountSecret;
  return { email: account.email, password: secret.password ?? '', alias: input.alias, cookies: secret.cookies };
}
