/** A payment card as the booking engine needs it, for one use. Never logged, never stored in clear. */
export type CardDetails = {
  pan: string;
  expiryMonth: number;
  expiryYear: number;
  name: string;
  /** Present only until its one use (kept in memory-backed storage with a TTL, never in Postgres). */
  cvv?: string;
};

/** Why the vault refused a token: the booking ends `failed` with `PanTokenInvalid`. */
export class PanTokenInvalidError extends Error {
  constructor(reason: string) {
    super(`panToken is not usable: ${reason}`);
    this.name = 'PanTokenInvalidError';
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
   * The card behind a token, for the booking that is about to pay with it. The CVV, if any, is
   * consumed: a second call gets the card without it. Throws `PanTokenInvalidError` for an
   * unknown, purged or malformed token, and for a token another client stored (tenant isolation:
   * `clientId` is the booking's client).
   */
  openCard(panToken: string, use: { bookingId: string; clientId: string }): Promise<CardDetails>;
  /** Removes the card behind a token (its booking ended, whatever the outcome), if `clientId` stored it. Idempotent. */
  purgeCard(panToken: string, owner: { clientId: string }): Promise<void>;
};
