-- A password the server generated and printed (the first start's, and the CLI's when none is piped
-- in) is one-time: a session signed in with it may do nothing but choose a new password, which
-- clears this. Passwords set before this migration cannot be told apart and stay as they are.
ALTER TABLE users ADD COLUMN must_change_password boolean NOT NULL DEFAULT false;
