import { randomBytes } from 'node:crypto';
import { AppError, validationError, type CallbackSecretView } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { sealedColumns, type ColumnSealer } from '@quarry/keyring';

/** Seals callback secrets at rest with the keyring, bound to the client's row, as every stored secret. */
export type CallbackSealer = ColumnSealer;

export type CallbackClientPorts = {
  pool: Queryable;
  sealer: Pick<CallbackSealer, 'seal'>;
  /** The SSRF policy deliveries follow: throws for a URL whose host is (or resolves to) an address it refuses. */
  checkUrl: (url: string) => Promise<void>;
};

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

async function vet(ports: Pick<CallbackClientPorts, 'checkUrl'>, field: string, url: string): Promise<void> {
  await ports.checkUrl(url).catch((error: unknown) => {
    throw validationError([`${field}: refused: ${(error as Error).message}`]);
  });
}

/**
 * Checks a request's `callbackUrl` against the SSRF policy deliveries follow: a refusal is a 400
 * naming the field, before anything is stored.
 */
export async function vetCallbackUrl(checkUrl: CallbackClientPorts['checkUrl'], url: string, field = 'callbackUrl'): Promise<void> {
  await vet({ checkUrl }, field, url);
}

/**
 * Gives the client its callback secret if it has none yet, on the connection (the transaction) of
 * the request that names its first `callbackUrl`: the secret is returned only to that request
 * (shown once), and a request that fails takes it back with its rollback. Two first requests at
 * once: only the one whose row went in shows it.
 */
export async function ensureCallbackSecret(
  db: Queryable,
  sealer: Pick<CallbackSealer, 'seal'>,
  clientId: string,
): Promise<string | undefined> {
  const existing = await db.query('SELECT 1 FROM callback_clients WHERE client_id = $1', [clientId]);
  if (existing.rows.length > 0) return undefined;
  const secret = newSecret();
  const created = await db.query(
    'INSERT INTO callback_clients (client_id, secret_sealed) VALUES ($1, $2) ON CONFLICT (client_id) DO NOTHING RETURNING client_id',
    [clientId, sealer.seal(sealedColumns.callbackSecret, clientId, secret)],
  );
  return created.rows.length > 0 ? secret : undefined;
}

async function clientExists(db: Queryable, clientId: string): Promise<void> {
  const found = await db.query('SELECT 1 FROM clients WHERE client_id = $1', [clientId]);
  if (found.rows.length === 0) throw new AppError('NotFound', `client ${clientId} not found`);
}

type SettingsRow = { default_url: string | null; previous_valid_until: Date | null };
const view = (clientId: string, row: SettingsRow | undefined, webhookSecret?: string): CallbackSecretView => ({
  clientId,
  defaultUrl: row?.default_url ?? null,
  ...(webhookSecret ? { webhookSecret } : {}),
  previousSecretValidUntil:
    row?.previous_valid_until && row.previous_valid_until > new Date() ? row.previous_valid_until.toISOString() : null,
});

/**
 * Operators (admin API, CLI): sets or removes a client's default callback URL, used for every
 * event whose request named none. Creates the client's secret if it has none (returned once).
 */
export async function setDefaultCallbackUrl(ports: CallbackClientPorts, clientId: string, url: string | null): Promise<CallbackSecretView> {
  await clientExists(ports.pool, clientId);
  if (url !== null) await vet(ports, 'url', url);
  const secret = newSecret();
  const result = await ports.pool.query<SettingsRow & { created: boolean }>(
    `INSERT INTO callback_clients (client_id, default_url, secret_sealed) VALUES ($1, $2, $3)
     ON CONFLICT (client_id) DO UPDATE SET default_url = EXCLUDED.default_url, updated_at = now()
     RETURNING default_url, previous_valid_until, (xmax = 0) AS created`,
    [clientId, url, ports.sealer.seal(sealedColumns.callbackSecret, clientId, secret)],
  );
  const row = result.rows[0];
  return view(clientId, row, row?.created ? secret : undefined);
}

/**
 * A new secret for the client, shown once; the previous one keeps signing beside it (two
 * signatures in `webhook-signature`) for `overlapHours`, so receivers can switch without losing
 * a callback. A client without a secret gets its first.
 */
export async function rotateCallbackSecret(
  ports: Pick<CallbackClientPorts, 'pool' | 'sealer'>,
  clientId: string,
  overlapHours: number,
): Promise<CallbackSecretView> {
  await clientExists(ports.pool, clientId);
  const secret = newSecret();
  const result = await ports.pool.query<SettingsRow>(
    `INSERT INTO callback_clients (client_id, secret_sealed) VALUES ($1, $2)
     ON CONFLICT (client_id) DO UPDATE SET
       previous_secret_sealed = callback_clients.secret_sealed,
       previous_valid_until = now() + make_interval(hours => $3),
       secret_sealed = EXCLUDED.secret_sealed, secret_created_at = now(), updated_at = now()
     RETURNING default_url, previous_valid_until`,
    [clientId, ports.sealer.seal(sealedColumns.callbackSecret, clientId, secret), overlapHours],
  );
  return view(clientId, result.rows[0], secret);
}
