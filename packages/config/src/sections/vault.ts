import { z } from 'zod';
import { ConfigError } from '../config-error.ts';
import { bookingsVariables } from './bookings.ts';
import { keyringKeys } from './keyring.ts';
import { optionalSecretKey } from './secret.ts';
import type { VariablesOf } from './section.ts';

export const vaultVariables = {
  // The card vault's own key (ADR 0036), read only by the roles that store or open cards; never
  // QUARRY_SECRET_KEY. Without it, POST /vault/* answer 503 VaultNotConfigured.
  VAULT_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)')
    .optional(),
  // More vault keys (ADR 0062): `id:base64key`, comma separated; VAULT_CURRENT_KEY_ID names the one
  // new cards are sealed with (`vault` is the key of VAULT_KEY), the others only open cards until
  // `quarry vault rotate` has re-sealed them. VAULT_TOKEN_KEY: the MAC key of card tokens, kept
  // across rotations so tokens handed out keep working (default: VAULT_KEY, as before key ids).
  VAULT_KEYS: keyringKeys.optional(),
  VAULT_CURRENT_KEY_ID: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be the id of a key of VAULT_KEYS (or "vault")')
    .optional(),
  VAULT_TOKEN_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)')
    .optional(),
  // A CVV waits at most this long, in Redis only (PCI DSS 3.3.1), for the booking that takes its
  // card (POST /book); from there it is kept as long as that booking may still order
  // (BOOKING_JOB_TIMEOUT_MS), and removed once the order that carries it is recorded.
  VAULT_CVV_TTL_SECONDS: z.coerce.number().int().min(60).max(3_600).default(900),
  // A card no booking purged is refused, then deleted, after this (and at the end of its expiry month).
  VAULT_CARD_RETENTION_HOURS: z.coerce.number().int().min(1).max(720).default(24),
};
/** The bookings' own deadline sets how long a taken CVV is held; QUARRY_SECRET_KEY is read only to refuse it as the vault's key. */
export const vaultBorrowed = { ...z.object(bookingsVariables).pick({ BOOKING_JOB_TIMEOUT_MS: true }).shape, ...optionalSecretKey };

/**
 * The card vault: its keys (VAULT_KEY and VAULT_KEYS both absent: no vault on this deployment) and
 * how long a CVV and a card are kept (a CVV `cvvTtlMs` until a booking takes the card, then
 * `cvvBookingHoldMs`).
 */
export const readVault = (vars: VariablesOf<typeof vaultBorrowed & typeof vaultVariables>) => {
  const key = vars.VAULT_KEY === undefined ? undefined : Buffer.from(vars.VAULT_KEY, 'base64');
  const keys = vars.VAULT_KEYS ?? [];
  const tokenKey = vars.VAULT_TOKEN_KEY === undefined ? undefined : Buffer.from(vars.VAULT_TOKEN_KEY, 'base64');
  const currentKeyId = vars.VAULT_CURRENT_KEY_ID;
  const problems: string[] = [];
  // The point of a key of its own: a leak of the general key must not open cards.
  const secretKey = vars.QUARRY_SECRET_KEY === undefined ? undefined : Buffer.from(vars.QUARRY_SECRET_KEY, 'base64');
  if (key && secretKey && key.equals(secretKey)) problems.push('VAULT_KEY must differ from QUARRY_SECRET_KEY');
  if (secretKey && keys.some((vaultKey) => vaultKey.material.equals(secretKey)))
    problems.push('VAULT_KEYS must differ from QUARRY_SECRET_KEY');
  if (tokenKey && secretKey && tokenKey.equals(secretKey)) problems.push('VAULT_TOKEN_KEY must differ from QUARRY_SECRET_KEY');
  if (keys.some((vaultKey) => vaultKey.id === 'vault'))
    problems.push('VAULT_KEYS: the id "vault" is the key of VAULT_KEY: give another id');
  if (keys.length > 0 && currentKeyId === undefined)
    problems.push('VAULT_CURRENT_KEY_ID is required with VAULT_KEYS: the id of the key new cards are sealed with');
  if (currentKeyId !== undefined && !(currentKeyId === 'vault' ? key : keys.some((vaultKey) => vaultKey.id === currentKeyId))) {
    problems.push(
      `VAULT_CURRENT_KEY_ID ${currentKeyId} is not a key of VAULT_KEYS${currentKeyId === 'vault' ? ' (vault needs VAULT_KEY)' : ''}`,
    );
  }
  if (keys.length > 0 && !key && !tokenKey)
    problems.push('VAULT_TOKEN_KEY is required with VAULT_KEYS when VAULT_KEY is not set: the key card tokens are checked with');
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    vault: {
      key,
      keys,
      currentKeyId,
      tokenKey,
      cvvTtlMs: vars.VAULT_CVV_TTL_SECONDS * 1000,
      cvvBookingHoldMs: vars.BOOKING_JOB_TIMEOUT_MS,
      cardRetentionMs: vars.VAULT_CARD_RETENTION_HOURS * 3600_000,
    },
  };
};
