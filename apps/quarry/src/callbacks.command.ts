import { callbackClientView, callbackOverview, rotateCallbackSecret, setDefaultCallbackUrl } from '@quarry/callbacks';
import type { ConfigFor } from '@quarry/config';
import { AppError, CallbackUrl } from '@quarry/contracts';
import { createPool, migrateToLatest } from '@quarry/db';
import { createDeploymentKeyring, createSealer } from '@quarry/keyring';
import { createAddressGuard } from '@quarry/safe-fetch';

/**
 * `quarry callbacks …` (ADR 0053): a client's default callback URL, a new secret with an overlap,
 * and what was delivered, failed or is waiting. Prints JSON on stdout; a secret only where it was
 * created (shown once).
 */
export async function runCallbacksCommand(
  config: ConfigFor<'callbacks'>,
  subcommand: string | undefined,
  args: string[],
  options: { url: string | undefined; overlapHours: string | undefined },
): Promise<void> {
  await migrateToLatest(config.databaseUrl);
  const db = createPool(config.databaseUrl, 2);
  // The policy the deliveries follow (ALLOW_PRIVATE_URLS): a URL they would refuse is refused here.
  const guard = createAddressGuard(config.allowPrivateUrls);
  const ports = {
    pool: db,
    sealer: createSealer(config.secretKey, createDeploymentKeyring(config.keyring)),
    checkUrl: async (url: string) => void (await guard.vet(new URL(url).hostname)),
  };
  const clientId = args[0];
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  try {
    if (subcommand === 'list') {
      print(await callbackOverview(db));
    } else if (subcommand === 'show') {
      if (!clientId) throw new Error('callbacks show: give the client id');
      print(await callbackClientView(db, clientId, { limit: 20 }));
    } else if (subcommand === 'set') {
      if (!clientId || !options.url) throw new Error('callbacks set: give the client id and --url URL');
      const url = CallbackUrl.safeParse(options.url);
      if (!url.success) throw new Error(`callbacks set: --url ${url.error.issues[0]?.message ?? 'is not valid'}`);
      print(await setDefaultCallbackUrl(ports, clientId, url.data));
    } else if (subcommand === 'clear') {
      if (!clientId) throw new Error('callbacks clear: give the client id');
      print(await setDefaultCallbackUrl(ports, clientId, null));
    } else if (subcommand === 'rotate') {
      if (!clientId) throw new Error('callbacks rotate: give the client id');
      const overlapHours = Number(options.overlapHours ?? 24);
      if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > 720)
        throw new Error('callbacks rotate: --overlap-hours must be an integer from 0 to 720');
      print(await rotateCallbackSecret(ports, clientId, overlapHours));
    } else {
      throw new Error('callbacks: use list, show, set, clear or rotate');
    }
  } catch (error) {
    if (error instanceof AppError) throw new Error(`callbacks ${subcommand}: ${(error.details.messages ?? [error.message]).join('; ')}`);
    throw error;
  } finally {
    await db.end();
  }
}
