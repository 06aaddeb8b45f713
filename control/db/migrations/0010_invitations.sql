-- An admin invites someone by email with a role: a one-time link whose token only the invitation
-- holds (its SHA-256 is kept, as for sessions). Accepted once, revocable, and it expires.
CREATE TABLE invitations (
  id           text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  email        text NOT NULL,
  role         text NOT NULL CHECK (role IN ('admin', 'member')),
  token_hash   text NOT NULL UNIQUE,
  invited_by   text REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX invitations_pending ON invitations (workspace_id) WHERE accepted_at IS NULL AND revoked_at IS NULL;
