-- Up Migration

-- The origins (scheme, host, port) of a client's own pages that may frame its 3-D Secure page
-- (`GET /book/{id}/tds`): its `frame-ancestors`, and the only targets of its completion message.
-- Empty (the default): no page may frame it.
ALTER TABLE clients ADD COLUMN frame_origins text[] NOT NULL DEFAULT '{}';
