-- Up Migration

-- Which transport sent an application (the vendor's API or the hosted form) and, when an
-- application for a vendor API went to the hosted form, why: shown in its status.
ALTER TABLE applications ADD COLUMN transport jsonb;

-- Down Migration
ALTER TABLE applications DROP COLUMN transport;
