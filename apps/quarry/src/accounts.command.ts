import { readFileSync } from 'node:fs';
import { createDeploymentKeyring, createSealer } from '@quarry/keyring';
import type { ConfigFor } from '@quarry/config';
import { AppError } from '@quarry/contracts';
import { createPool, migrateToLatest } from '@quarry/db';
import { listMailboxAccounts, loadOutlookAccounts } from '@quarry/mail';

/**
 * `quarry accounts …`: the mailbox-account pool of `POST /email/retrieve-outlook-account`; prints JSON.
 *   load --json '{"accounts":[{"email":…,"password":…,"imap":{…}}]}'   (or --file accounts.json)
 *                 the operator's load call: each account is logged in to once; those that cannot
 *                 be read are left out and listed under "refused" (exit status 1 when any is)
 *   list          the pool as operators see it (state, last message, last error)
 */
export async function runAccountsCommand(
  config: ConfigFor<'accounts'>,
  subcommand: string | undefined,
  options: { json: string | undefined; file: string | undefined },
): Promise<void> {
  await migrateToLatest(config.databaseUrl);
  const db = createPool(config.databaseUrl, 2);
  try {
    if (subcommand === 'load') {
      let text = options.json;
      if (options.file) text = readFileSync(options.file, 'utf8');
      let body: unknown;
      try {
        body = JSON.parse(text ?? '');
      } catch {
        throw new Error('accounts load: give the accounts as --json \'{"accounts":[{"email":…,"password":…}]}\' or --file accounts.json');
      }
      const result = await loadOutlookAccounts(
        {
          pool: db,
          ...createSealer(config.secretKey, createDeploymentKeyring(config.keyring)),
          domains: config.mailDomains,
          now: () => new Date(),
        },
        body,
      ).catch((error: unknown) => {
        if (error instanceof AppError) throw new Error(`accounts load: ${(error.details.messages ?? [error.message]).join('; ')}`);
        throw error;
      });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      if (result.refused.length > 0) process.exitCode = 1;
    } else if (subcommand === 'list') {
      process.stdout.write(`${JSON.stringify(await listMailboxAccounts({ db }), null, 2)}\n`);
    } else {
      throw new Error('accounts: use load or list');
    }
  } finally {
    await db.end();
  }
}
