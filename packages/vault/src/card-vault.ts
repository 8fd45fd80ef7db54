import { createHash, randomBytes } from 'node:crypto';
import { describeIssues, isPanTokenShaped, StorePanBody, validationError, type OtpView, type PanTokenView } from '@quarry/contracts';
import { withTransaction, type Pool } from '@quarry/db';
import type { Logger } from '@quarry/observability';
import type { Redis } from 'ioredis';
import { cardIdOf, cardUuid, makeToken } from './pan-token.ts';
import { createVaultKeys, type VaultKeySettings } from './vault-keys.ts';
import { CvvUnavailableError, PanTokenInvalidError, type CardDetails, type CardVault } from './vault-port.ts';
import { deleteCard, deleteExpired, insertCard, insertOtp, isCardKept, lockOtp, markOtpUsed, openStoredCard } from './vault.queries.ts';

/** The vault as the API uses it: the port bookings use, and the two use cases behind POST /vault/otp and /vault/pan. */
export type CardVaultService = CardVault & {
  /** POST /vault/otp: a one-time password authorising one card to be stored, valid for an hour. */
  issueOtp(clientId: string): Promise<OtpView>;
  /** POST /vault/pan: checks the card, spends the OTP, keeps the card sealed and the CVV in Redis, returns its token. */
  storePan(clientId: string, body: unknown): Promise<PanTokenView>;
};

export type CardVaultOptions = {
  db: Pool;
  redis: Redis;
  /** VAULT_KEY: 32 bytes of the vault's own, never QUARRY_SECRET_KEY (shorthand for `keys: { vaultKey }`). */
  vaultKey?: Buffer;
  /** The vault's keys (ADR 0062): VAULT_KEY, VAULT_KEYS, VAULT_CURRENT_KEY_ID, VAULT_TOKEN_KEY. */
  keys?: VaultKeySettings;
  /** The deployment's Redis key prefix (QUEUE_PREFIX): CVVs live under `<prefix>:vault:cvv:`. */
  prefix: string;
  now?: () => Date;
  /** How long an OTP authorises a store. */
  otpTtlMs?: number;
  /** How long a CVV waits in Redis for the booking that takes the card (PCI DSS 3.3.1: never in Postgres). */
  cvvTtlMs?: number;
  /** How long a card is kept when no booking purges it first (at most until its expiry month ends). */
  cardRetentionMs?: number;
  /** Audit lines of token use (PCI DSS 10): ids only, never a number, a token or a CVV. */
  logger?: Pick<Logger, 'info'>;
};

const hour = 3600_000;
const otpHash = (otp: string) => createHash('sha256').update(otp, 'utf8').digest();

/** The first instant after the card's expiry month (UTC): a card is valid through its last day. */
const endOfExpiryMonth = (month: number, year: number) => new Date(Date.UTC(year, month, 1));

/**
 * The expiry's problem, judged from the body as sent: a month and year that each parse are checked
 * whatever else is wrong, so one 400 names an expired card beside the other bad fields.
 */
function expiryProblem(body: unknown, now: Date): string | null {
  const fields = (body ?? {}) as { expiryMonth?: unknown; expiryYear?: unknown };
  const month = StorePanBody.shape.expiryMonth.safeParse(fields.expiryMonth);
  const year = StorePanBody.shape.expiryYear.safeParse(fields.expiryYear);
  if (!month.success || !year.success || endOfExpiryMonth(month.data, year.data) > now) return null;
  const written = `${String(month.data).padStart(2, '0')}/${year.data}`;
  const field = year.data < now.getUTCFullYear() ? 'expiryYear' : 'expiryMonth';
  return `${field}: the card expired (${written} is before this month)`;
}

export function createCardVault(options: CardVaultOptions): CardVaultService {
  const { db, redis } = options;
  const keys = createVaultKeys(options.keys ?? { vaultKey: options.vaultKey });
  const now = options.now ?? (() => new Date());
  const otpTtlMs = options.otpTtlMs ?? hour;
  const cvvTtlMs = options.cvvTtlMs ?? 15 * 60_000;
  const cardRetentionMs = options.cardRetentionMs ?? 24 * hour;
  const cvvKey = (cardId: string) => `${options.prefix}:vault:cvv:${cardId}`;

  async function storePan(clientId: string, body: unknown): Promise<PanTokenView> {
    const parsed = StorePanBody.safeParse(body ?? {});
    const at = now();
    const expired = typeof body === 'object' && body !== null ? expiryProblem(body, at) : null;
    if (!parsed.success || expired)
      throw validationError([...(parsed.success ? [] : describeIssues(parsed.error)), ...(expired ? [expired] : [])]);
    const input = parsed.data;
    const cardId = cardUuid(randomBytes(16));
    const tokenVersion = input.tokenVersion === 'v1' ? 1 : 2;
    const card = JSON.stringify({ pan: input.pan, expiryMonth: input.expiryMonth, expiryYear: input.expiryYear, name: input.name });
    await withTransaction(db, async (transaction) => {
      const hash = otpHash(input.otp);
      const otp = await lockOtp(transaction, hash, clientId);
      if (!otp) throw validationError(['otp: unknown (ask POST /vault/otp for one)']);
      if (otp.usedAt) throw validationError(['otp: already used (each OTP stores one card)']);
      if (otp.expiresAt <= at) throw validationError(['otp: expired (an OTP is valid for one hour)']);
      await markOtpUsed(transaction, hash, at);
      await insertCard(transaction, {
        cardId,
        clientId,
        tokenVersion,
        sealed: keys.sealCard(cardId, clientId, card),
        createdAt: at,
        expiresAt: new Date(Math.min(at.getTime() + cardRetentionMs, endOfExpiryMonth(input.expiryMonth, input.expiryYear).getTime())),
        withCvv: input.cvv !== undefined,
      });
      // Before the commit: a commit that fails leaves at most a CVV naming no card, gone at its TTL;
      // the other order could leave a card whose CVV was never kept.
      if (input.cvv) await redis.set(cvvKey(cardId), keys.sealCvv(cardId, clientId, input.cvv).toString('base64'), 'PX', cvvTtlMs);
    });
    await deleteExpired(db, at);
    options.logger?.info({ clientId, vaultCard: cardId, withCvv: input.cvv !== undefined }, 'vault: card stored');
    return { panToken: makeToken(keys.token, tokenVersion, Buffer.from(cardId.replaceAll('-', ''), 'hex')) };
  }

  async function issueOtp(clientId: string): Promise<OtpView> {
    const createdAt = now();
    const expiresAt = new Date(createdAt.getTime() + otpTtlMs);
    const otp = `otp_${randomBytes(32).toString('base64url')}`;
    await insertOtp(db, { otpHash: otpHash(otp), clientId, createdAt, expiresAt });
    return { id: otp, object: 'otp', expiresAt: expiresAt.toISOString() };
  }

  /** The card id of a token this vault made, or the refusal bookings map to `PanTokenInvalid`. */
  function cardOf(panToken: string): string {
    if (!isPanTokenShaped(panToken)) throw new PanTokenInvalidError('not a card token (v1: 164 characters, v2: "v2:" + 296)');
    const named = cardIdOf(keys.token, panToken);
    if (!named) throw new PanTokenInvalidError('not issued by this vault');
    return cardUuid(named.cardId);
  }

  return {
    isPanTokenShaped: (token) => isPanTokenShaped(token),
    issueOtp,
    storePan,

    async checkCard(panToken, owner) {
      const cardId = cardOf(panToken);
      if (!(await isCardKept(db, cardId, owner.clientId, now()))) throw new PanTokenInvalidError('unknown, purged or expired card');
    },

    async openCard(panToken, use) {
      const cardId = cardOf(panToken);
      const stored = await openStoredCard(db, cardId, use.clientId, { bookingId: use.bookingId, at: now() });
      // Another client's card reads as unknown: the answer tells nothing of other tenants' cards.
      if (!stored) throw new PanTokenInvalidError('unknown, purged or expired card');
      let card: Omit<CardDetails, 'cvv'>;
      try {
        card = JSON.parse(keys.openCard(cardId, use.clientId, stored.sealed)) as Omit<CardDetails, 'cvv'>;
      } catch {
        // Sealed under a key the vault no longer holds, or altered: unusable, never half-read.
        throw new PanTokenInvalidError('the card cannot be opened with the vault keys given (VAULT_KEY, VAULT_KEYS)');
      }
      // Read, not removed: the run that holds the booking's order reads it, and removes it once the
      // order that carries it is recorded (spendCvv); a run that stops before that leaves it for the
      // next holder, which would otherwise order without it (PCI DSS 3.3.1: gone after the order).
      const sealedCvv = await redis.get(cvvKey(cardId));
      const cvv = sealedCvv ? keys.openCvv(cardId, use.clientId, Buffer.from(sealedCvv, 'base64')) : undefined;
      options.logger?.info(
        { clientId: use.clientId, bookingId: use.bookingId, vaultCard: cardId, withCvv: cvv !== undefined },
        'vault: card opened',
      );
      // A card stored with a CVV is never paid with without it: the hotel would be sent an order the
      // card holder's bank may refuse, or that skips a check the client asked for.
      if (stored.withCvv && cvv === undefined) throw new CvvUnavailableError();
      return { ...card, ...(cvv !== undefined ? { cvv } : {}) };
    },

    async holdCvv(panToken, owner, ttlMs) {
      const named = isPanTokenShaped(panToken) ? cardIdOf(keys.token, panToken) : null;
      if (!named) return;
      const cardId = cardUuid(named.cardId);
      if (!(await isCardKept(db, cardId, owner.clientId, now()))) return;
      // PEXPIRE on a key that is gone does nothing: a CVV is never brought back.
      await redis.pexpire(cvvKey(cardId), ttlMs);
    },

    async spendCvv(panToken, owner) {
      const named = isPanTokenShaped(panToken) ? cardIdOf(keys.token, panToken) : null;
      if (!named) return;
      const cardId = cardUuid(named.cardId);
      if (!(await isCardKept(db, cardId, owner.clientId, new Date(0)))) return;
      await redis.del(cvvKey(cardId));
      options.logger?.info({ clientId: owner.clientId, vaultCard: cardId }, 'vault: CVV spent');
    },

    async purgeCard(panToken, owner) {
      const named = isPanTokenShaped(panToken) ? cardIdOf(keys.token, panToken) : null;
      if (!named) return;
      const cardId = cardUuid(named.cardId);
      if (await deleteCard(db, cardId, owner.clientId)) {
        await redis.del(cvvKey(cardId));
        options.logger?.info({ clientId: owner.clientId, vaultCard: cardId }, 'vault: card purged');
      }
    },
  };
}
