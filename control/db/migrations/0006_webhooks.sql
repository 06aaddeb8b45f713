-- Webhooks of a workspace. The secret is kept (it signs every delivery) and shown once at creation.
-- failing_since marks the first failed attempt since the last success: three days of it disable the
-- webhook, and disabled_reason says why.
CREATE TABLE webhooks (
  id              text PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url             text NOT NULL,
  events          text[] NOT NULL,
  link_id         text,
  domain_id       text,
  secret          text NOT NULL,
  enabled         boolean NOT NULL DEFAULT true,
  disabled_reason text,
  failing_since   timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_workspace ON webhooks (workspace_id, created_at, id);

-- One event for one webhook. Rows of one ordering key (the link or domain the event is about) go out
-- one at a time in id order; a sender claims a row with a lease (FOR UPDATE SKIP LOCKED, then
-- lease_until), so two control processes never send the same row at once and no transaction stays
-- open during the HTTP call.
CREATE TABLE webhook_deliveries (
  id               bigserial PRIMARY KEY,
  webhook_id       text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  message_id       text NOT NULL,
  event_type       text NOT NULL,
  order_key        text NOT NULL,
  payload          text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  lease_until      timestamptz,
  last_attempt_at  timestamptz,
  response_status  integer,
  response_excerpt text,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_open ON webhook_deliveries (webhook_id, order_key, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, id DESC);

-- Click files (the engines' Parquet output) already turned into link.clicked deliveries: a file is
-- claimed here in the transaction that enqueues its deliveries, so with several control processes
-- each file's clicks are sent once. Rows older than a few hours are pruned.
CREATE TABLE webhook_click_files (
  name    text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
