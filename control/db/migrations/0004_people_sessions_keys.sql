-- People sign in with an email and a password (argon2id, PHC form); users made for a key alone
-- (older CLI keys) have neither.
ALTER TABLE users
  ADD COLUMN email         text,
  ADD COLUMN password_hash text;
CREATE UNIQUE INDEX users_email ON users (lower(email)) WHERE email IS NOT NULL;

-- A key acts as its user with its own role (never more than the user's membership grants) and
-- scope; last_used_at is written at most once a minute per key and process.
ALTER TABLE api_keys
  ADD COLUMN name         text NOT NULL DEFAULT 'API key',
  ADD COLUMN role         text CHECK (role IN ('admin', 'member')),
  ADD COLUMN scope        text NOT NULL DEFAULT 'all' CHECK (scope IN ('all', 'read')),
  ADD COLUMN created_by   text REFERENCES users (id) ON DELETE SET NULL,
  ADD COLUMN last_used_at timestamptz;
UPDATE api_keys k SET role = m.role FROM memberships m WHERE m.workspace_id = k.workspace_id AND m.user_id = k.user_id;
UPDATE api_keys SET role = 'member' WHERE role IS NULL;
ALTER TABLE api_keys ALTER COLUMN role SET NOT NULL;
CREATE INDEX api_keys_workspace ON api_keys (workspace_id) WHERE revoked_at IS NULL;

-- A signed-in browser: only the SHA-256 of its cookie's token is kept. It acts in one workspace
-- at a time and ends when revoked or idle past RICOCHET_SESSION_IDLE_HOURS.
CREATE TABLE sessions (
  id           text PRIMARY KEY,
  token_hash   text NOT NULL UNIQUE,
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);
CREATE INDEX sessions_user ON sessions (user_id) WHERE revoked_at IS NULL;
