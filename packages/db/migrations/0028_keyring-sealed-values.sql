-- Up Migration

-- Values sealed with the keyring carry a header ("QK1", the key id's length and the id, at most 36
-- bytes) before the IV and tag (ADR 0059): a card token's sealed column grows by as much. Values
-- sealed before the keyring (28 bytes added) still fit.
ALTER TABLE bookings DROP CONSTRAINT bookings_pan_token_sealed_check;
ALTER TABLE bookings ADD CONSTRAINT bookings_pan_token_sealed_check CHECK (octet_length(pan_token_sealed) <= 299 + 28 + 36);

-- Down Migration
ALTER TABLE bookings DROP CONSTRAINT bookings_pan_token_sealed_check;
ALTER TABLE bookings ADD CONSTRAINT bookings_pan_token_sealed_check CHECK (octet_length(pan_token_sealed) <= 299 + 28);
