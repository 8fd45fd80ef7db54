import type { Pool, Queryable } from '@quarry/db';
import { countSealedByKey, resealColumns, type ResealProgress } from '@quarry/keyring';
import type { Redis } from 'ioredis';
import { vaultCardColumn, type VaultKeys } from './vault-keys.ts';

/** What `quarry vault status` reports: stored cards by key, and which keys no card uses any more. */
export type VaultKeysStatus = {
  currentKeyId: string;
  /** Stored cards by the key that sealed them; `legacy`: sealed before key ids, under VAULT_KEY. */
  cardsByKey: Record<string, number>;
  /** Cards sealed with a key other than the current one: 0 once a rotation is done. */
  notCurrent: number;
  /** Keys the vault holds that no stored card uses: removable once the CVVs sealed with them are gone too. */
  unused: string[];
};

export async function vaultKeysStatus(db: Queryable, keys: VaultKeys): Promise<VaultKeysStatus> {
  const [counts] = await countSealedByKey(db, [vaultCardColumn]);
  const cardsByKey = counts?.byKey ?? {};
  const currentKeyId = keys.keyring.currentKeyId;
  const notCurrent = Object.entries(cardsByKey).reduce((sum, [keyId, cards]) => sum + (keyId === currentKeyId ? 0 : cards), 0);
  return {
    currentKeyId,
    cardsByKey,
    notCurrent,
    unused: keys.readableKeyIds.filter((keyId) => keyId !== currentKeyId && !(keyId in cardsByKey)),
  };
}

/**
 * One pass over the stored cards: each card not sealed with the current vault key is opened and
 * sealed again with it, in this process (the card is never printed or written anywhere else),
 * `batchSize` rows per transaction, rows a booking holds skipped (`FOR UPDATE SKIP LOCKED`) for the
 * next pass. Bound to the same row as before: a card still opens only for its card and client ids.
 */
export async function resealCards(
  pool: Pool,
  keys: VaultKeys,
  options: { batchSize?: number; onProgress?: (progress: ResealProgress) => void } = {},
): Promise<ResealProgress> {
  const [progress] = await resealColumns(pool, keys.keyring, { ...options, columns: [vaultCardColumn] });
  return progress ?? { table: vaultCardColumn.table, column: vaultCardColumn.column, resealed: 0, unreadable: 0 };
}

/** What a pass over the CVVs kept in Redis did. */
export type CvvResealProgress = { resealed: number; unreadable: number };

/**
 * Re-seals the CVVs kept in Redis (`<prefix>:vault:cvv:<cardId>`) that are not sealed with the
 * current key, so the old key can go without waiting for them to expire. `SET … XX KEEPTTL`: a
 * CVV spent or expired meanwhile is never brought back, and its clock is left as it is.
 */
export async function resealCvvs(db: Queryable, redis: Redis, keys: VaultKeys, prefix: string): Promise<CvvResealProgress> {
  const progress: CvvResealProgress = { resealed: 0, unreadable: 0 };
  const keyPrefix = `${prefix}:vault:cvv:`;
  let cursor = '0';
  do {
    const [next, redisKeys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 200);
    cursor = next;
    for (const redisKey of redisKeys) {
      const cardId = redisKey.slice(keyPrefix.length);
      const sealed = await redis.get(redisKey);
      if (sealed === null) continue;
      const value = Buffer.from(sealed, 'base64');
      if (keys.keyring.keyIdOf(value) === keys.keyring.currentKeyId) continue;
      const owner = (await db.query<{ client_id: string }>('SELECT client_id FROM vault_cards WHERE card_id::text = $1', [cardId])).rows[0];
      let cvv: string;
      try {
        if (!owner) throw new Error('no card');
        cvv = keys.openCvv(cardId, owner.client_id, value);
      } catch {
        progress.unreadable += 1;
        continue;
      }
      if ((await redis.set(redisKey, keys.sealCvv(cardId, owner.client_id, cvv).toString('base64'), 'KEEPTTL', 'XX')) === 'OK')
        progress.resealed += 1;
    }
  } while (cursor !== '0');
  return progress;
}
