/** A payment card as the booking engine needs it, for one use. Never logged, never stored in clear. */
export type CardDetails = {
  pan: string;
  expiryMonth: number;
  expiryYear: number;
  name: string;
  /** Present only while it is kept (in memory-backed storage with a TTL, never in Postgres), for one order. */
  cvv?: string;
};

/** Why the vault refused a token: the booking ends `failed` with `PanTokenInvalid`. */
export class PanTokenInvalidError extends Error {
  /** Why, without the token: "not issued by this vault", "unknown, purged or expired card". */
  readonly reason: string;
  constructor(reason: string) {
    super(`panToken is not usable: ${reason}`);
    this.name = 'PanTokenInvalidError';
    this.reason = reason;
  }
}

/**
 * The card was stored with a CVV that is no longer kept (its time ran out, an order already used
 * it, or Redis lost it): the booking ends `failed` with `CvvUnavailable` before anything is sent,
 * rather than ordering without it.
 */
export class CvvUnavailableError extends Error {
  constructor() {
    super(
      "the card's security code (CVV) is no longer kept: it is kept for one order and a limited time; store the card again to book with it",
    );
    this.name = 'CvvUnavailableError';
  }
}

/**
 * What bookings need of the vault. A token is v1 (164 characters) or v2 (`v2:` + 296, 299 in all);
 * both are accepted wherever a token is.
 */
export type CardVault = {
  /** Whether a string has the shape of a token (v1 or v2): checked at the API before anything is queued. */
  isPanTokenShaped(token: string): boolean;
  /**
   * Whether a booking may take the card (`POST /book`): the token was issued by this vault, for
   * `clientId`, and its card is still kept. Throws `PanTokenInvalidError` otherwise (another
   * client's card reads as unknown). Opens nothing and reads no CVV.
   */
  checkCard(panToken: string, owner: { clientId: string }): Promise<void>;
  /**
   * The card behind a token, for the booking about to pay with it, with its CVV while it is kept
   * (read, not removed: the run that records the order removes it with `spendCvv`). Only the run
   * that holds the booking's order (or its checkout) calls it. Throws `PanTokenInvalidError` for an
   * unknown, purged or malformed token, or a token another client stored (tenant isolation:
   * `clientId` is the booking's client), and `CvvUnavailableError` when the card was stored with a
   * CVV that is gone.
   */
  openCard(panToken: string, use: { bookingId: string; clientId: string }): Promise<CardDetails>;
  /**
   * Restarts the CVV's clock when a booking takes the card (`POST /book`): kept `ttlMs` from now,
   * the longest the booking may still send its order. Nothing when the card has no CVV kept.
   */
  holdCvv(panToken: string, owner: { clientId: string }, ttlMs: number): Promise<void>;
  /** Removes the CVV once the order that carries it is recorded as being placed: one order per CVV. */
  spendCvv(panToken: string, owner: { clientId: string }): Promise<void>;
  /** Removes the card behind a token (its booking ended, whatever the outcome), if `clientId` stored it. Idempotent. */
  purgeCard(panToken: string, owner: { clientId: string }): Promise<void>;
};
