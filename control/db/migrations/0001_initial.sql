-- Workspaces, their people and keys.
CREATE TABLE workspaces (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  slug        text NOT NULL UNIQUE,
  plan        text NOT NULL CHECK (plan IN ('free', 'basic', 'pro', 'business')),
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id          text PRIMARY KEY,
  name        text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role         text NOT NULL CHECK (role IN ('admin', 'member')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);

-- Only the SHA-256 of a key is kept; the prefix is what a dashboard may show.
CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_hash      text NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  revoked_at    timestamptz
);

CREATE TABLE domains (
  id                 text PRIMARY KEY,
  workspace_id       text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  host               text NOT NULL UNIQUE,
  kind               text NOT NULL CHECK (kind IN ('subdomain', 'custom')),
  status             text NOT NULL CHECK (status IN ('pending', 'verified', 'failed')),
  is_primary         boolean NOT NULL DEFAULT false,
  verified_at        timestamptz,
  verification_token text NOT NULL,
  root_redirect_url  text,
  not_found_url      text,
  expired_url        text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX domains_one_primary ON domains (workspace_id) WHERE is_primary;
CREATE INDEX domains_workspace ON domains (workspace_id);

CREATE TABLE folders (
  id           text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX folders_name ON folders (workspace_id, lower(name));

CREATE TABLE tags (
  id           text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  color        text CHECK (color IN ('blue', 'teal', 'purple', 'pink')),
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX tags_name ON tags (workspace_id, lower(name));

CREATE TABLE links (
  id              text PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  domain_id       text NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  slug            text NOT NULL,
  url             text NOT NULL,
  title           text,
  description     text,
  og_image_url    text,
  folder_id       text REFERENCES folders (id) ON DELETE SET NULL,
  redirect_type   integer NOT NULL DEFAULT 302 CHECK (redirect_type IN (301, 302, 307, 308)),
  pass_query      boolean NOT NULL DEFAULT false,
  open_in_app     boolean NOT NULL DEFAULT false,
  open_in_browser boolean NOT NULL DEFAULT false,
  utm             jsonb,
  geo_rules       jsonb NOT NULL DEFAULT '[]',
  device_rules    jsonb NOT NULL DEFAULT '[]',
  expires_at      timestamptz,
  expired_url     text,
  ab_test         jsonb,
  password_hash   text,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (domain_id, slug)
);
-- Listing is newest first within a workspace; the cursor walks this index.
CREATE INDEX links_workspace_created ON links (workspace_id, created_at DESC, id DESC);
CREATE INDEX links_folder ON links (folder_id) WHERE folder_id IS NOT NULL;

CREATE TABLE link_tags (
  link_id text NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  tag_id  text NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  PRIMARY KEY (link_id, tag_id)
);
CREATE INDEX link_tags_tag ON link_tags (tag_id);

-- Written in the same transaction as the change it describes; a publisher sends unsent rows to
-- the bus and marks them, so a change reaches the engines even if control or the bus restarts.
CREATE TABLE outbox (
  id         bigserial PRIMARY KEY,
  topic      text NOT NULL,
  payload    jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at    timestamptz
);
CREATE INDEX outbox_unsent ON outbox (id) WHERE sent_at IS NULL;

-- Fixed one-minute windows shared by every control process on this database.
CREATE TABLE rate_limits (
  bucket       text NOT NULL,
  window_start timestamptz NOT NULL,
  hits         integer NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
