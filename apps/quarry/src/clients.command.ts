import { createClient, findFrameOrigins, listClients, revokeClient, setFrameOrigins } from '@quarry/auth';
import type { ConfigFor } from '@quarry/config';
import { AppError } from '@quarry/contracts';
import { createPool, migrateToLatest } from '@quarry/db';
import { createDeploymentKeyring } from '@quarry/keyring';

/** `quarry clients …`: prints JSON on stdout so scripts can read it. */
export async function runClientsCommand(
  config: ConfigFor<'clients'>,
  subcommand: string | undefined,
  options: { name: string | undefined; scopes: string | undefined; clientId: string | undefined; origins: string[]; clear: boolean },
): Promise<void> {
  await migrateToLatest(config.databaseUrl);
  const db = createPool(config.databaseUrl, 2);
  try {
    if (subcommand === 'create') {
      const scopes = (options.scopes ?? '')
        .split(',')
        .map((scope) => scope.trim())
        .filter(Boolean);
      const created = await createClient(
        { db, secretKey: config.secretKey, keyring: createDeploymentKeyring(config.keyring) },
        { name: options.name ?? '', scopes },
      ).catch((error: unknown) => {
        if (error instanceof AppError) throw new Error(`clients create: ${(error.details.messages ?? [error.message]).join('; ')}`);
        throw error;
      });
      process.stdout.write(`${JSON.stringify(created)}\n`);
    } else if (subcommand === 'list') {
      process.stdout.write(`${JSON.stringify(await listClients({ db }), null, 2)}\n`);
    } else if (subcommand === 'revoke') {
      if (!options.clientId) throw new Error('clients revoke: give the client id');
      if (!(await revokeClient({ db }, options.clientId))) throw new Error(`clients revoke: no active client ${options.clientId}`);
      process.stdout.write(`${JSON.stringify({ clientId: options.clientId, revoked: true })}\n`);
    } else if (subcommand === 'frame-origins') {
      // The origins of the client's pages that may frame its 3-D Secure pages: shown, replaced, or cleared.
      if (!options.clientId) throw new Error('clients frame-origins: give the client id, then its origins (or --clear)');
      const explain = (error: unknown): never => {
        if (error instanceof AppError) throw new Error(`clients frame-origins: ${(error.details.messages ?? [error.message]).join('; ')}`);
        throw error;
      };
      const view =
        options.clear || options.origins.length > 0
          ? await setFrameOrigins({ db }, options.clientId, { origins: options.clear ? [] : options.origins }).catch(explain)
          : await findFrameOrigins({ db }, options.clientId).catch(explain);
      process.stdout.write(`${JSON.stringify(view)}\n`);
    } else {
      throw new Error('clients: use create, list, revoke or frame-origins');
    }
  } finally {
    await db.end();
  }
}
