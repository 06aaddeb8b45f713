import { Context, Effect, Layer } from "effect"
import { Database } from "../../../shared/db/Database.ts"
import { newId } from "../../../shared/ids.ts"
import type { ServiceUnavailable } from "../../api/errors.ts"
import { query, run, transaction } from "../../db/sql.ts"
import { toIso } from "../../http/fields.ts"
import { ImportNotFound } from "./errors.ts"
import type { ParsedUpload } from "./parseUpload.ts"
import { type ImportJob, MAX_REPORTED_FAILURES } from "./schema.ts"

interface JobRow {
  readonly id: string
  readonly workspace_id: string
  readonly status: "queued" | "running" | "done"
  readonly total_rows: number
  readonly rows_done: number
  readonly created: number
  readonly skipped: number
  readonly failed: number
  readonly ignored_columns: ReadonlyArray<string>
  readonly created_at: Date
  readonly finished_at: Date | null
}

/** A job a runner holds the lease of. */
export interface ClaimedJob {
  readonly id: string
  readonly workspaceId: string
  readonly rowsDone: number
}

/** What a runner did with a run of rows; `rowsDone` is the job's new position. */
export interface Progress {
  readonly rowsDone: number
  readonly created: number
  readonly skipped: number
  readonly failures: ReadonlyArray<{ readonly row: number; readonly error: unknown }>
}

export class ImportJobRepository extends Context.Service<ImportJobRepository, {
  /** Stores the file (already checked by parseUpload) as a queued job. */
  readonly create: (workspaceId: string, source: string, upload: ParsedUpload) => Effect.Effect<ImportJob, ServiceUnavailable>
  readonly find: (workspaceId: string, id: string) => Effect.Effect<ImportJob, ImportNotFound | ServiceUnavailable>
  /** The oldest unfinished job whose lease is free or lapsed, now leased to `owner`. */
  readonly claim: (owner: string, leaseSeconds: number) => Effect.Effect<ClaimedJob | undefined, ServiceUnavailable>
  /** The file of a job, as uploaded. */
  readonly source: (jobId: string) => Effect.Effect<string, ServiceUnavailable>
  /** Records progress and renews the lease; false when another runner has taken the job over. */
  readonly advance: (jobId: string, owner: string, leaseSeconds: number, progress: Progress) => Effect.Effect<boolean, ServiceUnavailable>
  readonly finish: (jobId: string, owner: string) => Effect.Effect<void, ServiceUnavailable>
}>()("ricochet/ImportJobRepository") {}

const report = (job: JobRow, failures: ReadonlyArray<{ row: number; error: any }>): ImportJob => ({
  id: job.id,
  status: job.status,
  totalRows: job.total_rows,
  rowsDone: job.rows_done,
  created: job.created,
  skipped: job.skipped,
  failed: job.failed,
  failures: failures.map((f) => ({ row: f.row, error: f.error })),
  ignoredColumns: job.ignored_columns,
  createdAt: toIso(job.created_at)!,
  finishedAt: toIso(job.finished_at)
})

export const ImportJobRepositoryLayer = Layer.effect(ImportJobRepository)(Effect.gen(function*() {
  const database = yield* Database
  const withDatabase = Effect.provideService(Database, database)
  return ImportJobRepository.of({
    create: (workspaceId, source, upload) =>
      query((sql) =>
        sql<JobRow[]>`INSERT INTO import_jobs ${sql({
          id: newId("imp"),
          workspace_id: workspaceId,
          total_rows: upload.rows.length,
          ignored_columns: sql.json(upload.columns.ignored as never),
          source
        })} RETURNING id, workspace_id, status, total_rows, rows_done, created, skipped, failed, ignored_columns, created_at, finished_at`
      ).pipe(Effect.map(([job]) => report(job!, [])), withDatabase),
    find: (workspaceId, id) =>
      Effect.gen(function*() {
        const [job] = yield* query((sql) =>
          sql<JobRow[]>`
            SELECT id, workspace_id, status, total_rows, rows_done, created, skipped, failed, ignored_columns, created_at, finished_at
            FROM import_jobs WHERE workspace_id = ${workspaceId} AND id = ${id}`
        )
        if (job === undefined) return yield* ImportNotFound.make()
        const failures = yield* query((sql) =>
          sql<{ row: number; error: unknown }[]>`
            SELECT row_no AS row, error FROM import_failures WHERE job_id = ${id} ORDER BY row_no LIMIT ${MAX_REPORTED_FAILURES}`
        )
        return report(job, failures)
      }).pipe(withDatabase),
    claim: (owner, leaseSeconds) =>
      query((sql) =>
        sql<{ id: string; workspace_id: string; rows_done: number }[]>`
          UPDATE import_jobs SET status = 'running', lease_owner = ${owner},
            lease_until = clock_timestamp() + make_interval(secs => ${leaseSeconds}), updated_at = clock_timestamp()
          WHERE id = (
            SELECT id FROM import_jobs
            WHERE status <> 'done' AND (lease_until IS NULL OR lease_until < clock_timestamp())
            ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING id, workspace_id, rows_done`
      ).pipe(
        Effect.map(([job]) => (job === undefined ? undefined : { id: job.id, workspaceId: job.workspace_id, rowsDone: job.rows_done })),
        withDatabase
      ),
    source: (jobId) =>
      query((sql) => sql<{ source: string }[]>`SELECT source FROM import_jobs WHERE id = ${jobId}`).pipe(
        Effect.map(([job]) => job?.source ?? ""),
        withDatabase
      ),
    advance: (jobId, owner, leaseSeconds, progress) =>
      transaction((tx) =>
        Effect.gen(function*() {
          const [held] = yield* run(() =>
            tx`UPDATE import_jobs SET rows_done = ${progress.rowsDone}, created = created + ${progress.created},
                 skipped = skipped + ${progress.skipped}, failed = failed + ${progress.failures.length},
                 lease_until = clock_timestamp() + make_interval(secs => ${leaseSeconds}), updated_at = clock_timestamp()
               WHERE id = ${jobId} AND lease_owner = ${owner} AND rows_done < ${progress.rowsDone}
               RETURNING id`
          )
          if (held === undefined) return false
          if (progress.failures.length > 0) {
            const rows = progress.failures.map((f) => ({ job_id: jobId, row_no: f.row, error: tx.json(f.error as never) }))
            yield* run(() => tx`INSERT INTO import_failures ${tx(rows)} ON CONFLICT (job_id, row_no) DO NOTHING`)
          }
          return true
        })
      ).pipe(withDatabase),
    finish: (jobId, owner) =>
      query((sql) =>
        sql`UPDATE import_jobs SET status = 'done', source = '', finished_at = clock_timestamp(), lease_owner = NULL,
              lease_until = NULL, updated_at = clock_timestamp()
            WHERE id = ${jobId} AND lease_owner = ${owner}`
      ).pipe(Effect.asVoid, withDatabase)
  })
}))
