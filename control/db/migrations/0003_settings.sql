-- Installation-wide values every process reads. engine_secret signs password-unlock cookies and
-- salts visitor hashes; it lives here so every engine of an installation agrees on it.
CREATE TABLE settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);
INSERT INTO settings (key, value)
VALUES ('engine_secret', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
