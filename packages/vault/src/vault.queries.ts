import type { Queryable } from '@quarry/db';

/** The SQL of the vault (ADR 0028: beside its use cases). Card ids are uuids; OTPs are kept as SHA-256. */

export async function insertOtp(
  db: Queryable,
  otp: { otpHash: Buffer; clientId: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.query('INSERT INTO vault_otps (otp_hash, client_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    otp.otpHash,
    otp.clientId,
    otp.createdAt,
    otp.expiresAt,
  ]);
}

/** The OTP of this client, locked until the transaction ends: two requests with one OTP store one card. */
export async function lockOtp(db: Queryable, otpHash: Buffer, clientId: string): Promise<{ expiresAt: Date; usedAt: Date | null } | null> {
  const result = await db.query<{ expires_at: Date; used_at: Date | null }>(
    'SELECT expires_at, used_at FROM vault_otps WHERE otp_hash = $1 AND client_id = $2 FOR UPDATE',
    [otpHash, clientId],
  );
  const row = result.rows[0];
  return row ? { expiresAt: row.expires_at, usedAt: row.used_at } : null;
}

export async function markOtpUsed(db: Queryable, otpHash: Buffer, usedAt: Date): Promise<void> {
  await db.query('UPDATE vault_otps SET used_at = $2 WHERE otp_hash = $1', [otpHash, usedAt]);
}

export async function insertCard(
  db: Queryable,
  card: { cardId: string; clientId: string; tokenVersion: 1 | 2; sealed: Buffer; createdAt: Date; expiresAt: Date; withCvv: boolean },
): Promise<void> {
  await db.query(
    'INSERT INTO vault_cards (card_id, client_id, token_version, card_sealed, created_at, expires_at, with_cvv) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [card.cardId, card.clientId, card.tokenVersion, card.sealed, card.createdAt, card.expiresAt, card.withCvv],
  );
}

/**
 * The sealed card of this client that is still kept at `now`, recording the booking that opens it,
 * and whether it was stored with a CVV.
 */
export async function openStoredCard(
  db: Queryable,
  cardId: string,
  clientId: string,
  use: { bookingId: string; at: Date },
): Promise<{ sealed: Buffer; withCvv: boolean } | null> {
  const result = await db.query<{ card_sealed: Buffer; with_cvv: boolean }>(
    `UPDATE vault_cards SET opened_at = $3, opened_by_booking = $4
      WHERE card_id = $1 AND client_id = $2 AND expires_at > $3
      RETURNING card_sealed, with_cvv`,
    [cardId, clientId, use.at, use.bookingId],
  );
  const row = result.rows[0];
  return row ? { sealed: row.card_sealed, withCvv: row.with_cvv } : null;
}

/** Whether this client keeps this card at `now` (another client's card reads as not kept). */
export async function isCardKept(db: Queryable, cardId: string, clientId: string, at: Date): Promise<boolean> {
  const result = await db.query('SELECT 1 FROM vault_cards WHERE card_id = $1 AND client_id = $2 AND expires_at > $3', [
    cardId,
    clientId,
    at,
  ]);
  return (result.rowCount ?? 0) > 0;
}

export async function deleteCard(db: Queryable, cardId: string, clientId: string): Promise<boolean> {
  const result = await db.query('DELETE FROM vault_cards WHERE card_id = $1 AND client_id = $2', [cardId, clientId]);
  return (result.rowCount ?? 0) > 0;
}

/**
 * Deletes a bounded number of cards past their retention and OTPs past their hour: run on each
 * store, so the tables stay small without a job of their own and no request pays for a backlog.
 */
export async function deleteExpired(db: Queryable, now: Date, limit = 100): Promise<void> {
  await db.query('DELETE FROM vault_cards WHERE card_id IN (SELECT card_id FROM vault_cards WHERE expires_at <= $1 LIMIT $2)', [
    now,
    limit,
  ]);
  await db.query('DELETE FROM vault_otps WHERE otp_hash IN (SELECT otp_hash FROM vault_otps WHERE expires_at <= $1 LIMIT $2)', [
    now,
    limit,
  ]);
}
