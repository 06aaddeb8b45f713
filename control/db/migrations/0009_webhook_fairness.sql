-- Each webhook's circuit breaker (control/webhooks/breaker.ts): failed attempts since the last
-- success, how many times in a row it opened (the cool-down doubles with it), and until when it is
-- open (null: closed; past: half-open, one probe goes out).
ALTER TABLE webhooks
  ADD COLUMN breaker_failures   integer NOT NULL DEFAULT 0,
  ADD COLUMN breaker_opens      integer NOT NULL DEFAULT 0,
  ADD COLUMN breaker_open_until timestamptz;

-- A webhook's pending deliveries oldest first: the fair claim takes the first few of each webhook,
-- and the backlog trim counts back from the newest.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, id) WHERE status = 'pending';

-- Deliveries being sent (leased): what the per-endpoint and per-workspace caps count.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (webhook_id) WHERE status = 'pending' AND lease_until IS NOT NULL;
