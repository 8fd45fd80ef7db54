-- Up Migration

-- Whether the client asked for SMTPUTF8 at MAIL FROM (RFC 6531). A message that did, and whose
-- headers hold UTF-8, may go only to a next hop that offers SMTPUTF8; any other hop gets it
-- returned with 5.6.7, as Postfix does (ADR 0025). Without the flag, 8-bit headers are legacy
-- mail and go as they are.
ALTER TABLE mail_messages ADD COLUMN smtputf8 boolean NOT NULL DEFAULT false;
