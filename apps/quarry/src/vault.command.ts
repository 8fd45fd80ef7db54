import type { ConfigFor } from '@quarry/config';
import { createPool, migrateToLatest } from '@quarry/db';
import { createRedis } from '@quarry/jobs';
import { createVaultKeys, hasVaultKeys, resealCards, resealCvvs, vaultKeySettingsOf, vaultKeysStatus } from '@quarry/vault';

/**
 * `quarry vault status|rotate` (ADR 0062): `status` counts the stored cards by the vault key that
 * sealed them; `rotate` re-seals, inside this process, every card (and every CVV kept in Redis) not
 * sealed with VAULT_CURRENT_KEY_ID while the service runs, in batches, rows in use skipped and
 * retried, then prints the status. Card data is never printed: progress (counts) to stderr, JSON to stdout.
 */
export async function runVaultCommand(
  config: ConfigFor<'vault'>,
  subcommand: string | undefined,
  options: { batchSize: string | undefined; passes: string | undefined },
): Promise<void> {
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  if (subcommand !== 'status' && subcommand !== 'rotate') throw new Error('vault: use status or rotate (new keys: quarry keys generate)');
  if (!hasVaultKeys(config.vault)) throw new Error('vault: this deployment has no vault key (VAULT_KEY or VAULT_KEYS)');
  const keys = createVaultKeys(vaultKeySettingsOf(config.vault));
  await migrateToLatest(config.databaseUrl);
  const db = createPool(config.databaseUrl, 2);
  try {
    if (subcommand === 'rotate') {
      const batchSize = Number(options.batchSize ?? 500);
      const passes = Number(options.passes ?? 10);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
        throw new Error('vault rotate: --batch-size must be 1 to 10000');
      if (!Number.isInteger(passes) || passes < 1) throw new Error('vault rotate: --passes must be a positive integer');
      const redis = createRedis(config.redisUrl);
      try {
        const cvvs = await resealCvvs(db, redis, keys, config.queuePrefix);
        process.stderr.write(
          `quarry: vault rotate: CVVs: ${cvvs.resealed} re-sealed${cvvs.unreadable ? `, ${cvvs.unreadable} unreadable` : ''}\n`,
        );
      } finally {
        redis.disconnect();
      }
      // Cards a booking holds are skipped by a pass: the next pass, a moment later, takes them.
      for (let pass = 1; pass <= passes; pass += 1) {
        const result = await resealCards(db, keys, {
          batchSize,
          onProgress: (step) =>
            process.stderr.write(
              `quarry: vault rotate: pass ${pass}: ${step.resealed} cards re-sealed${step.unreadable ? `, ${step.unreadable} unreadable` : ''}\n`,
            ),
        });
        const status = await vaultKeysStatus(db, keys);
        if (status.notCurrent <= result.unreadable || pass === passes) {
          print({ ...status, unreadable: result.unreadable });
          if (status.notCurrent > 0) process.exitCode = 1;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
    print(await vaultKeysStatus(db, keys));
  } finally {
    await db.end();
  }
}
