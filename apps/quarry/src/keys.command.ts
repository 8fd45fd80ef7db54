import { randomBytes } from 'node:crypto';
import type { ConfigFor } from '@quarry/config';
import { createPool, migrateToLatest } from '@quarry/db';
import { countSealedByKey, createDeploymentKeyring, resealColumns, type ColumnKeyCounts } from '@quarry/keyring';

/** What `keys status` reports: values by key, and which keys no value uses any more. */
type KeysStatus = {
  currentKeyId: string;
  columns: ColumnKeyCounts[];
  /** Values sealed with a key other than the current one (or the old layout): 0 once a rotation is done. */
  notCurrent: number;
  /** Keys (and `legacy`, the old layout under QUARRY_SECRET_KEY) no stored value uses: safe to remove from the environment. */
  unused: string[];
};

function statusOf(currentKeyId: string, readable: readonly string[], columns: ColumnKeyCounts[]): KeysStatus {
  const used = new Set(columns.flatMap((column) => Object.keys(column.byKey)));
  const notCurrent = columns.reduce(
    (sum, column) =>
      sum + Object.entries(column.byKey).reduce((count, [keyId, values]) => count + (keyId === currentKeyId ? 0 : values), 0),
    0,
  );
  return { currentKeyId, columns, notCurrent, unused: readable.filter((keyId) => keyId !== currentKeyId && !used.has(keyId)) };
}

/**
 * `quarry keys …` (ADR 0059): `generate` prints a new key for QUARRY_KEYS; `status` counts the
 * sealed values by key; `rotate` re-seals every value not sealed with QUARRY_CURRENT_KEY_ID while
 * the service runs (500 rows per transaction, rows in use skipped and retried), then prints the
 * status. Progress goes to stderr, JSON to stdout.
 */
export async function runKeysCommand(
  config: ConfigFor<'keys'>,
  subcommand: string | undefined,
  options: { id: string | undefined; batchSize: string | undefined; passes: string | undefined },
): Promise<void> {
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  if (subcommand === 'generate') {
    const id = options.id ?? `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
    if (!/^[a-z0-9][a-z0-9-]{0,31}$/.test(id) || id === 'secret')
      throw new Error('keys generate: --id must be 1 to 32 lower-case letters, digits and dashes, not "secret"');
    print({
      id,
      key: `${id}:${randomBytes(32).toString('base64')}`,
      next: 'add it to QUARRY_KEYS on every role and restart them; then set QUARRY_CURRENT_KEY_ID to it, restart, and run quarry keys rotate',
    });
    return;
  }
  if (subcommand !== 'status' && subcommand !== 'rotate') throw new Error('keys: use generate, status or rotate');
  const keyring = createDeploymentKeyring(config.keyring);
  const readable = [
    ...config.keyring.keys.map((key) => key.id),
    ...(config.keyring.secretKey && config.keyring.openSecretKeySeals ? ['secret', 'legacy'] : []),
  ];
  await migrateToLatest(config.databaseUrl);
  const db = createPool(config.databaseUrl, 2);
  try {
    if (subcommand === 'rotate') {
      const batchSize = Number(options.batchSize ?? 500);
      const passes = Number(options.passes ?? 10);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
        throw new Error('keys rotate: --batch-size must be 1 to 10000');
      if (!Number.isInteger(passes) || passes < 1) throw new Error('keys rotate: --passes must be a positive integer');
      // Rows a request or a job holds are skipped by a pass: the next pass, a moment later, takes them.
      for (let pass = 1; pass <= passes; pass += 1) {
        const results = await resealColumns(db, keyring, {
          batchSize,
          onProgress: (step) =>
            process.stderr.write(
              `quarry: keys rotate: pass ${pass}: ${step.table}.${step.column}: ${step.resealed} re-sealed${step.unreadable ? `, ${step.unreadable} unreadable` : ''}\n`,
            ),
        });
        const unreadable = results.reduce((sum, result) => sum + result.unreadable, 0);
        const status = statusOf(keyring.currentKeyId, readable, await countSealedByKey(db));
        if (status.notCurrent <= unreadable || pass === passes) {
          print({ ...status, unreadable });
          if (status.notCurrent > 0) process.exitCode = 1;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
    print(statusOf(keyring.currentKeyId, readable, await countSealedByKey(db)));
  } finally {
    await db.end();
  }
}
