-- Up Migration

-- The card vault (packages/vault). Nothing here is readable without VAULT_KEY, a key of its own
-- (never QUARRY_SECRET_KEY): the card (number, expiry, name) is sealed with AES-256-GCM under a
-- key derived from it, bound to the row's card and client ids. The card token is not stored at all:
-- it is the card id and a MAC under VAULT_KEY, recomputed to check a token; a dump of this table
-- holds neither a number nor a token. The CVV is never here (PCI DSS 3.3.1): it lives in Redis
-- with a TTL until its one use.
CREATE TABLE vault_cards (
  card_id uuid PRIMARY KEY,
  client_id text NOT NULL REFERENCES clients (client_id),
  -- The format of the token issued for it: 1 (164 characters) or 2 ("v2:" + 296, 299 in all).
  token_version smallint NOT NULL CHECK (token_version IN (1, 2)),
  card_sealed bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- The card is refused, then deleted, after this (retention), or when its booking ends (purge).
  expires_at timestamptz NOT NULL,
  -- The last booking that opened the card (audit of token use).
  opened_at timestamptz,
  opened_by_booking text
);
CREATE INDEX vault_cards_expiry ON vault_cards (expires_at);

-- One-time passwords that authorise storing one card. Only a SHA-256 of each is kept: the OTP is a
-- short-lived credential.
CREATE TABLE vault_otps (
  otp_hash bytea PRIMARY KEY,
  client_id text NOT NULL REFERENCES clients (client_id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX vault_otps_expiry ON vault_otps (expires_at);

-- Down Migration
DROP TABLE vault_otps;
DROP TABLE vault_cards;
