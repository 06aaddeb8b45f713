-- CSV imports run as jobs: the uploaded file is checked and stored here at once (so any control
-- process can run it, and take it over after a crash), then its rows are created in order.
-- rows_done is the job's position: a job taken over resumes after it, and a row created again
-- after a crash is found by its slug or url and skipped, so nothing is created twice.
CREATE TABLE import_jobs (
  id              text PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  status          text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done')),
  total_rows      integer NOT NULL,
  rows_done       integer NOT NULL DEFAULT 0,
  created         integer NOT NULL DEFAULT 0,
  skipped         integer NOT NULL DEFAULT 0,
  failed          integer NOT NULL DEFAULT 0,
  ignored_columns jsonb NOT NULL DEFAULT '[]',
  -- The file as uploaded (UTF-8 text); emptied once the job is done.
  source          text NOT NULL,
  lease_owner     text,
  lease_until     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  finished_at     timestamptz
);
CREATE INDEX import_jobs_pending ON import_jobs (created_at) WHERE status <> 'done';

CREATE TABLE import_failures (
  job_id text NOT NULL REFERENCES import_jobs (id) ON DELETE CASCADE,
  row_no integer NOT NULL,
  error  jsonb NOT NULL,
  PRIMARY KEY (job_id, row_no)
);

-- An import row without a slug is skipped when its domain already has a link to its url: found
-- through this index (a url can be longer than a btree entry, its hash never is).
CREATE INDEX links_domain_url ON links (domain_id, md5(url));
