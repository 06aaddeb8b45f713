import { Context, Effect, Layer } from "effect"
import { promisify } from "node:util"
import { brotliCompress, brotliDecompress, constants } from "node:zlib"
import type { TransactionSql } from "postgres"
import { Database } from "../../../shared/db/Database.ts"
import { newId } from "../../../shared/ids.ts"
import type { LimitReached } from "../../kernel/errors.ts"
import type { DatabaseUnavailable } from "../../kernel/DatabaseUnavailable.ts"
import { attempt, query, run, transaction } from "../../db/sql.ts"
import { toIso } from "../../kernel/fields.ts"
import { ImportFinished, ImportNotFound, ImportUploading, tooManyImports } from "./errors.ts"
import type { ParsedUpload } from "./parseUpload.ts"
import { ImportsQueued } from "./ImportsQueued.ts"
import { pieceJson, type UploadPiece } from "./pieces.ts"
import { type ImportJob, MAX_REPORTED_FAILURES, MAX_UNFINISHED_IMPORTS } from "./schema.ts"

type Status = "uploading" | "queued" | "running" | "done" | "cancelled"

interface JobRow {
  readonly id: string
  readonly workspace_id: string
  readonly status: Status
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
  /** The file's header line; undefined for a job queued before pieces existed, whose file is still whole. */
  readonly headers: ReadonlyArray<string> | undefined
}

/** What a runner did with a run of rows; `rowsDone` is the job's new position. */
export interface Progress {
  readonly rowsDone: number
  readonly created: number
  readonly skipped: number
  readonly failures: ReadonlyArray<{ readonly row: number; readonly error: unknown }>
}

/** A reservation's outcome: a new upload to store, or the job an earlier request with the same Idempotency-Key made. */
export type Reservation = { readonly _tag: "New"; readonly id: string } | { readonly _tag: "Existing"; readonly job: ImportJob }

/** After a run of rows: the runner goes on, was told to stop (cancelled), or lost its lease to another. */
export type Advanced = "held" | "cancelled" | "lost"

export class ImportJobRepository extends Context.Service<ImportJobRepository, {
  /**
   * Starts an upload: an invisible job (`uploading`) that its pieces are stored under. Refused when
   * the workspace has MAX_UNFINISHED_IMPORTS unfinished jobs; with a key an earlier upload used,
   * that upload's job (or ImportUploading while it is still being stored).
   */
  readonly reserve: (workspaceId: string, idempotencyKey: string | undefined) => Effect.Effect<Reservation, LimitReached | ImportUploading | DatabaseUnavailable>
  /** Stores one piece of an upload: one short statement. A piece stored already (a legacy job adopted again after a crash) is kept. */
  readonly storePiece: (jobId: string, piece: UploadPiece) => Effect.Effect<void, DatabaseUnavailable>
  /** Makes a stored upload a queued job: visible, and claimable by the runners. */
  readonly publish: (jobId: string, upload: ParsedUpload) => Effect.Effect<ImportJob, DatabaseUnavailable>
  /** Removes an upload that will not be published, a few pieces a statement. */
  readonly discard: (jobId: string) => Effect.Effect<void, DatabaseUnavailable>
  readonly find: (workspaceId: string, id: string) => Effect.Effect<ImportJob, ImportNotFound | DatabaseUnavailable>
  /** Stops a queued or running job at its next batch; a cancelled one is answered as it is. */
  readonly cancel: (workspaceId: string, id: string) => Effect.Effect<ImportJob, ImportNotFound | ImportFinished | DatabaseUnavailable>
  /**
   * An unfinished job whose lease is free or lapsed, now leased to `owner`: of the workspace whose
   * imports waited longest for a turn, among those with no job leased right now; its oldest job.
   */
  readonly claim: (owner: string, leaseSeconds: number) => Effect.Effect<ClaimedJob | undefined, DatabaseUnavailable>
  /** The stored piece holding the job's row `index` (0-based among its links), as JSON. */
  readonly piece: (jobId: string, index: number) => Effect.Effect<{ readonly firstRow: number; readonly json: string } | undefined, DatabaseUnavailable>
  /** Records progress, renews the lease and drops the pieces the job has passed. */
  readonly advance: (jobId: string, owner: string, leaseSeconds: number, progress: Progress) => Effect.Effect<Advanced, DatabaseUnavailable>
  /** Gives the job's lease back, so that the next turn can go to another workspace. */
  readonly release: (jobId: string, owner: string) => Effect.Effect<void, DatabaseUnavailable>
  readonly finish: (jobId: string, owner: string) => Effect.Effect<void, DatabaseUnavailable>
  /**
   * Deletes a few pieces of done, cancelled or abandoned uploads (and those uploads once empty);
   * how many pieces it deleted, so the caller calls again while there is more.
   */
  readonly sweep: Effect.Effect<number, DatabaseUnavailable>
  /** A job queued before pieces existed: its file as uploaded. */
  readonly legacySource: (jobId: string) => Effect.Effect<string, DatabaseUnavailable>
  /** Such a job, now in pieces: its header line recorded and the whole file dropped. */
  readonly adoptLegacy: (jobId: string, headers: ReadonlyArray<string>) => Effect.Effect<void, DatabaseUnavailable>
}>()("ricochet/ImportJobRepository") {}

/** An upload whose request died without removing it (a crash) is swept after this long. */
const ABANDONED_AFTER = "10 minutes"
/** Pieces deleted by one statement: each can be 256 KiB, and the embedded database runs them in-line. */
const PIECES_A_STATEMENT = 8
// Serialises claims across control processes, so that two runners never take two jobs of one workspace.
const CLAIM_LOCK = 7_342_008

const compress = promisify(brotliCompress)
const decompress = promisify(brotliDecompress)
/** Brotli's fastest quality: about 3× smaller JSON at several times gzip's speed. */
const FASTEST = { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MIN_QUALITY } }

const COLUMNS = "id, workspace_id, status, total_rows, rows_done, created, skipped, failed, ignored_columns, created_at, finished_at"

const report = (job: JobRow, failures: ReadonlyArray<{ row: number; error: any }>): ImportJob => ({
  id: job.id,
  // An upload being stored is never shown (find and reserve skip it): this only narrows the type.
  status: job.status === "uploading" ? "queued" : job.status,
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

const failuresOf = (tx: TransactionSql, jobId: string) =>
  run(() =>
    tx<{ row: number; error: unknown }[]>`
      SELECT row_no AS row, error FROM import_failures WHERE job_id = ${jobId} ORDER BY row_no LIMIT ${MAX_REPORTED_FAILURES}`
  )

const visibleJob = (tx: TransactionSql, workspaceId: string, id: string) =>
  Effect.gen(function*() {
    const [job] = yield* run(() =>
      tx<JobRow[]>`SELECT ${tx.unsafe(COLUMNS)} FROM import_jobs WHERE workspace_id = ${workspaceId} AND id = ${id} AND status <> 'uploading'`
    )
    if (job === undefined) return yield* ImportNotFound.make()
    return report(job, yield* failuresOf(tx, id))
  })

export const ImportJobRepositoryLayer = Layer.effect(ImportJobRepository)(Effect.gen(function*() {
  const database = yield* Database
  const queued = yield* ImportsQueued
  const withDatabase = Effect.provideService(Database, database)

  const deletePieces = (jobId: string) =>
    query((sql) =>
      sql`DELETE FROM import_pieces WHERE job_id = ${jobId} AND first_row IN (
            SELECT first_row FROM import_pieces WHERE job_id = ${jobId} LIMIT ${PIECES_A_STATEMENT})`
    ).pipe(Effect.map((result) => result.count))

  return ImportJobRepository.of({
    reserve: (workspaceId, idempotencyKey) =>
      transaction((tx) =>
        Effect.gen(function*() {
          // One reservation of a workspace at a time: the count and the key are then exact.
          yield* run(() => tx`SELECT pg_advisory_xact_lock(hashtext(${`imports:${workspaceId}`}))`)
          if (idempotencyKey !== undefined) {
            const [earlier] = yield* run(() =>
              tx<JobRow[]>`SELECT ${tx.unsafe(COLUMNS)} FROM import_jobs WHERE workspace_id = ${workspaceId} AND idempotency_key = ${idempotencyKey}`
            )
            if (earlier !== undefined) {
              if (earlier.status === "uploading") return yield* ImportUploading.make()
              return { _tag: "Existing", job: report(earlier, yield* failuresOf(tx, earlier.id)) } as const
            }
          }
          const [{ n }] = yield* run(() =>
            tx<{ n: number }[]>`SELECT count(*)::int AS n FROM import_jobs
              WHERE workspace_id = ${workspaceId} AND status IN ('uploading', 'queued', 'running')`
          )
          if (n >= MAX_UNFINISHED_IMPORTS) return yield* tooManyImports()
          const id = newId("imp")
          yield* run(() =>
            tx`INSERT INTO import_jobs ${tx({ id, workspace_id: workspaceId, status: "uploading", total_rows: 0, idempotency_key: idempotencyKey ?? null })}`
          )
          return { _tag: "New", id } as const
        })
      ).pipe(withDatabase),
    storePiece: (jobId, piece) =>
      Effect.gen(function*() {
        // Compressed on libuv's threads: less for the database to write, nothing for the event loop.
        const body = yield* Effect.orDie(Effect.tryPromise(() => compress(pieceJson(piece), FASTEST)))
        // Each piece moves the job's clock on: an upload still being stored is not abandoned.
        yield* query((sql) =>
          sql`WITH stored AS (
                INSERT INTO import_pieces ${sql({ job_id: jobId, first_row: piece.firstRow, row_count: piece.rows.length, body })}
                ON CONFLICT (job_id, first_row) DO NOTHING)
              UPDATE import_jobs SET updated_at = clock_timestamp() WHERE id = ${jobId}`
        )
      }).pipe(withDatabase),
    publish: (jobId, upload) =>
      query((sql) =>
        sql<JobRow[]>`UPDATE import_jobs SET status = 'queued', total_rows = ${upload.totalRows},
            ignored_columns = ${sql.json(upload.columns.ignored as never)}, headers = ${sql.json(upload.headers as never)},
            updated_at = clock_timestamp()
          WHERE id = ${jobId} AND status = 'uploading'
          RETURNING ${sql.unsafe(COLUMNS)}`
      ).pipe(
        // Nothing else changes an upload being stored: a missing row is a bug.
        Effect.flatMap(([job]) => (job === undefined ? Effect.die(new Error(`import ${jobId} vanished while uploading`)) : Effect.succeed(report(job, [])))),
        // The runners are woken once this has committed.
        Effect.tap(() => queued.mark),
        withDatabase
      ),
    discard: (jobId) =>
      Effect.gen(function*() {
        while ((yield* deletePieces(jobId)) > 0) {
          // Each statement is short; the loop gives others their turn between them.
        }
        yield* query((sql) => sql`DELETE FROM import_jobs WHERE id = ${jobId} AND status = 'uploading'`)
      }).pipe(withDatabase),
    find: (workspaceId, id) => transaction((tx) => visibleJob(tx, workspaceId, id)).pipe(withDatabase),
    cancel: (workspaceId, id) =>
      transaction((tx) =>
        Effect.gen(function*() {
          // The lease stays with the runner: it records the batch it is in, sees the status and stops.
          const [stopped] = yield* run(() =>
            tx`UPDATE import_jobs SET status = 'cancelled', finished_at = clock_timestamp(), updated_at = clock_timestamp()
               WHERE workspace_id = ${workspaceId} AND id = ${id} AND status IN ('queued', 'running') RETURNING id`
          )
          const job = yield* visibleJob(tx, workspaceId, id)
          if (stopped === undefined && job.status === "done") return yield* ImportFinished.make()
          return job
        })
      ).pipe(withDatabase),
    claim: (owner, leaseSeconds) =>
      transaction((tx) =>
        Effect.gen(function*() {
          yield* run(() => tx`SELECT pg_advisory_xact_lock(${CLAIM_LOCK})`)
          const [job] = yield* run(() =>
            tx<{ id: string; workspace_id: string; rows_done: number; headers: ReadonlyArray<string> | null }[]>`
              UPDATE import_jobs SET status = 'running', lease_owner = ${owner},
                lease_until = clock_timestamp() + make_interval(secs => ${leaseSeconds}), updated_at = clock_timestamp()
              WHERE id = (
                SELECT j.id FROM import_jobs j LEFT JOIN import_turns t ON t.workspace_id = j.workspace_id
                WHERE j.status IN ('queued', 'running') AND (j.lease_until IS NULL OR j.lease_until < clock_timestamp())
                  AND NOT EXISTS (
                    SELECT 1 FROM import_jobs busy WHERE busy.workspace_id = j.workspace_id AND busy.id <> j.id
                      AND busy.lease_owner IS NOT NULL AND busy.lease_until >= clock_timestamp())
                ORDER BY t.served_at ASC NULLS FIRST, j.created_at, j.id
                LIMIT 1 FOR UPDATE OF j SKIP LOCKED)
              RETURNING id, workspace_id, rows_done, headers`
          )
          if (job === undefined) return undefined
          yield* run(() =>
            tx`INSERT INTO import_turns (workspace_id, served_at) VALUES (${job.workspace_id}, clock_timestamp())
               ON CONFLICT (workspace_id) DO UPDATE SET served_at = EXCLUDED.served_at`
          )
          return { id: job.id, workspaceId: job.workspace_id, rowsDone: job.rows_done, headers: job.headers ?? undefined }
        })
      ).pipe(withDatabase),
    piece: (jobId, index) =>
      Effect.gen(function*() {
        const [piece] = yield* query((sql) =>
          sql<{ first_row: number; row_count: number; body: Uint8Array }[]>`
            SELECT first_row, row_count, body FROM import_pieces
            WHERE job_id = ${jobId} AND first_row <= ${index} ORDER BY first_row DESC LIMIT 1`
        )
        if (piece === undefined || piece.first_row + piece.row_count <= index) return undefined
        // What this process compressed: failing to decompress it is a defect.
        const json = yield* Effect.orDie(Effect.tryPromise(() => decompress(piece.body)))
        return { firstRow: piece.first_row, json: json.toString("utf8") }
      }).pipe(withDatabase),
    advance: (jobId, owner, leaseSeconds, progress) =>
      transaction((tx) =>
        Effect.gen(function*() {
          const [held] = yield* run(() =>
            tx<{ status: Status }[]>`UPDATE import_jobs SET rows_done = ${progress.rowsDone}, created = created + ${progress.created},
                 skipped = skipped + ${progress.skipped}, failed = failed + ${progress.failures.length},
                 lease_until = clock_timestamp() + make_interval(secs => ${leaseSeconds}), updated_at = clock_timestamp()
               WHERE id = ${jobId} AND lease_owner = ${owner} AND rows_done < ${progress.rowsDone}
               RETURNING status`
          )
          if (held === undefined) return "lost" as const
          if (progress.failures.length > 0) {
            const rows = progress.failures.map((f) => ({ job_id: jobId, row_no: f.row, error: tx.json(f.error as never) }))
            yield* run(() => tx`INSERT INTO import_failures ${tx(rows)} ON CONFLICT (job_id, row_no) DO NOTHING`)
          }
          yield* run(() => tx`DELETE FROM import_pieces WHERE job_id = ${jobId} AND first_row + row_count <= ${progress.rowsDone}`)
          return held.status === "cancelled" ? "cancelled" as const : "held" as const
        })
      ).pipe(withDatabase),
    release: (jobId, owner) =>
      query((sql) => sql`UPDATE import_jobs SET lease_owner = NULL, lease_until = NULL WHERE id = ${jobId} AND lease_owner = ${owner}`).pipe(
        Effect.asVoid,
        withDatabase
      ),
    finish: (jobId, owner) =>
      query((sql) =>
        sql`UPDATE import_jobs SET status = CASE WHEN status = 'cancelled' THEN 'cancelled' ELSE 'done' END,
              finished_at = COALESCE(finished_at, clock_timestamp()), lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
            WHERE id = ${jobId} AND lease_owner = ${owner}`
      ).pipe(Effect.asVoid, withDatabase),
    sweep: Effect.gen(function*() {
      const deleted = yield* query((sql) =>
        sql`DELETE FROM import_pieces WHERE (job_id, first_row) IN (
              SELECT p.job_id, p.first_row FROM import_pieces p JOIN import_jobs j ON j.id = p.job_id
              WHERE j.status IN ('done', 'cancelled')
                OR (j.status = 'uploading' AND j.updated_at < clock_timestamp() - ${ABANDONED_AFTER}::interval)
              LIMIT ${PIECES_A_STATEMENT})`
      )
      if (deleted.count === 0) {
        yield* query((sql) =>
          sql`DELETE FROM import_jobs j WHERE j.status = 'uploading' AND j.updated_at < clock_timestamp() - ${ABANDONED_AFTER}::interval
                AND NOT EXISTS (SELECT 1 FROM import_pieces p WHERE p.job_id = j.id)`
        )
      }
      return deleted.count
    }).pipe(withDatabase),
    legacySource: (jobId) =>
      // Without the API's deadline: reading back a file of up to 64 MiB is slow, and happens once.
      attempt(() => database.sql<{ source: string }[]>`SELECT source FROM import_jobs WHERE id = ${jobId}`).pipe(
        Effect.map(([job]) => job?.source ?? ""),
        withDatabase
      ),
    adoptLegacy: (jobId, headers) =>
      query((sql) => sql`UPDATE import_jobs SET headers = ${sql.json(headers as never)}, source = '' WHERE id = ${jobId}`).pipe(
        Effect.asVoid,
        withDatabase
      )
  })
}))
