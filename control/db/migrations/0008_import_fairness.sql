-- Imports that neither hold the database nor wait behind other workspaces' imports.
--
-- The uploaded file is no longer one `source` value (a 63 MB statement held the embedded database
-- for minutes): it is parsed once at upload into pieces of at most 1,000 rows (JSON of the cells,
-- compressed by control), each stored by a statement of its own, and the job becomes visible and
-- claimable only once every piece is in ('uploading' until then). Pieces are deleted as the job
-- passes them, and those of a finished, cancelled or abandoned job by the runners' sweep.
-- `source` stays for jobs queued before this migration: a runner turns one into pieces first.
ALTER TABLE import_jobs ALTER COLUMN source SET DEFAULT '';
ALTER TABLE import_jobs DROP CONSTRAINT import_jobs_status_check;
ALTER TABLE import_jobs ADD CONSTRAINT import_jobs_status_check
  CHECK (status IN ('uploading', 'queued', 'running', 'done', 'cancelled'));
-- The file's header line, which the stored rows' cells follow.
ALTER TABLE import_jobs ADD COLUMN headers jsonb;
-- A client's Idempotency-Key: a retried upload with the same key gets this job back.
ALTER TABLE import_jobs ADD COLUMN idempotency_key text;
CREATE UNIQUE INDEX import_jobs_idempotency ON import_jobs (workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

DROP INDEX import_jobs_pending;
CREATE INDEX import_jobs_unfinished ON import_jobs (workspace_id, created_at) WHERE status IN ('uploading', 'queued', 'running');

CREATE TABLE import_pieces (
  job_id    text NOT NULL REFERENCES import_jobs (id) ON DELETE CASCADE,
  -- The piece's first row as an index into the file's links (0 is the line after the header).
  first_row integer NOT NULL,
  row_count integer NOT NULL,
  body      bytea NOT NULL,
  PRIMARY KEY (job_id, first_row)
);
-- Already compressed: the database should not spend time trying again.
ALTER TABLE import_pieces ALTER COLUMN body SET STORAGE EXTERNAL;

-- When each workspace's imports last had a turn: runners claim the workspace that waited longest.
CREATE TABLE import_turns (
  workspace_id text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  served_at    timestamptz NOT NULL
);
