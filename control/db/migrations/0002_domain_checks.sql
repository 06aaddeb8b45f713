-- State of the background DNS checks. A checker claims a domain by setting check_lease_until, so
-- with several control processes each domain is checked by one of them at a time, and no
-- transaction stays open during the DNS queries.
ALTER TABLE domains
  ADD COLUMN next_check_at        timestamptz,
  ADD COLUMN check_lease_until    timestamptz,
  ADD COLUMN last_checked_at      timestamptz,
  ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0,
  ADD COLUMN last_reason          text;
CREATE INDEX domains_due ON domains (next_check_at) WHERE kind = 'custom';
