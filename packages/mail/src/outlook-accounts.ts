import {
  AppError,
  describeIssues,
  LoadOutlookAccountsBody,
  RetrieveOutlookAccountBody,
  validationError,
  type LoadOutlookAccountsResult,
  type OutlookAccount,
} from '@quarry/contracts';
import { withTransaction, type Pool } from '@quarry/db';
import { assignFreeOutlookAccount, countFreeOutlookAccounts, insertOutlookAccounts } from './mail-accounts.queries.ts';
import { insertOrReplaceExpiredBinding } from './bindings.queries.ts';
import { domainOf, isReceivingDomain } from './addresses.ts';
import { defaultExpiry } from './latest-date.ts';

/** Sealing is the caller's (the secret key lives with auth); this package only sees the two functions. */
export type AccountPorts = {
  pool: Pool;
  seal: (plaintext: string) => Buffer;
  open: (sealed: Buffer) => string;
  domains: readonly string[];
  now: () => Date;
};

type Secret = { password: string; cookies: string };

/** Operator: adds accounts to the pool, password and cookies sealed together. */
export async function loadOutlookAccounts(ports: AccountPorts, body: unknown): Promise<LoadOutlookAccountsResult> {
  const parsed = LoadOutlookAccountsBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const loaded = await insertOutlookAccounts(
    ports.pool,
    parsed.data.accounts.map((account) => ({
      email: account.email,
      sealedSecret: ports.seal(JSON.stringify({ password: account.password, cookies: account.cookies } satisfies Secret)),
    })),
  );
  return { loaded, available: await countFreeOutlookAccounts(ports.pool) };
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
  if (isReceivingDomain(ports.domains, input.forwardsTo)) problems.push(`forwardsTo: must not be on a domain this service receives mail for (${domainOf(input.forwardsTo)})`);
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
    const assigned = await assignFreeOutlookAccount(client, { clientId, alias: input.alias, forwardsTo: input.forwardsTo, keepSender: input.keepSender });
    if (!assigned) throw new AppError('AccountPoolExhausted');
    return assigned;
  });
  const secret = JSON.parse(ports.open(account.sealedSecret)) as Secret;
  return { email: account.email, password: secret.password, alias: input.alias, cookies: secret.cookies };
}
