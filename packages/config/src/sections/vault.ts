import { z } from 'zod';
import { ConfigError } from '../config-error.ts';
import { bookingsVariables } from './bookings.ts';
import { optionalSecretKey } from './secret.ts';
import type { VariablesOf } from './section.ts';

export const vaultVariables = {
  // The card vault's own key (ADR 0036), read only by the roles that store or open cards; never
  // QUARRY_SECRET_KEY. Without it, POST /vault/* answer 503 VaultNotConfigured.
  VAULT_KEY: z
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
 * The card vault: its key (absent: no vault on this deployment) and how long a CVV and a card are
 * kept (a CVV `cvvTtlMs` until a booking takes the card, then `cvvBookingHoldMs`).
 */
export const readVault = (vars: VariablesOf<typeof vaultBorrowed & typeof vaultVariables>) => {
  const key = vars.VAULT_KEY === undefined ? undefined : Buffer.from(vars.VAULT_KEY, 'base64');
  // The point of a key of its own: a leak of the general key must not open cards.
  if (key && vars.QUARRY_SECRET_KEY !== undefined && key.equals(Buffer.from(vars.QUARRY_SECRET_KEY, 'base64'))) {
    throw new ConfigError(['VAULT_KEY must differ from QUARRY_SECRET_KEY']);
  }
  return {
    vault: { key, cvvTtlMs: vars.VAULT_CVV_TTL_SECONDS * 1000, cvvBookingHoldMs: vars.BOOKING_JOB_TIMEOUT_MS, cardRetentionMs: vars.VAULT_CARD_RETENTION_HOURS * 3600_000 },
  };
};
