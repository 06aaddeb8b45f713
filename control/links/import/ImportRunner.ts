import { Effect, Layer, Result, Semaphore } from "effect"
import { hostname } from "node:os"
import { randomBytes } from "node:crypto"
import { Database } from "../../../shared/db/Database.ts"
import { type PollLoop, pollLoop } from "../../jobs/pollLoop.ts"
import { type FieldIssue, unknownReference } from "../../kernel/errors.ts"
import type { DatabaseUnavailable } from "../../kernel/DatabaseUnavailable.ts"
import { query } from "../../db/sql.ts"
import type { Plan } from "../../kernel/plans.ts"
import { decodeLinkCreate } from "../bulk.ts"
import { TagUnknown } from "../../kernel/unknownReferences.ts"
import { checkLinkPlan } from "../linkInput.ts"
import { type CreateFailure, LinkRepository, LinkRepositoryLayer } from "../LinkRepository.ts"
import type { LinkCreate } from "../schema.ts"
import { type ImportRow, mapColumns } from "./columns.ts"
import { type ClaimedJob, ImportJobRepository, type Progress } from "./ImportJobRepository.ts"
import { ImportsQueued } from "./ImportsQueued.ts"
import { parseUpload } from "./parseUpload.ts"
import { type PieceRow, rowsOfPiece } from "./pieces.ts"

/** Rows recorded at a time: after a crash, at most these are run again (and skipped). */
const BATCH = 100
/** A runner that stops renewing its lease for this long loses the job to another control process. */
export const LEASE_SECONDS = 30
/**
 * A turn: how long a runner works on one job before it gives the lease back and claims again, so
 * that another workspace's job gets the next turn (the claim takes the one that waited longest).
 */
const TURN_MS = 2_000
/** Runners in each control process: jobs of this many workspaces move at once. */
export const IMPORT_RUNNERS = 2
/**
 * An idle runner's rest: a job published here wakes the runners (ImportsQueued), so this only
 * bounds how late they find a job published by another control process or left by a dead one
 * (whose lease lapses after LEASE_SECONDS anyway), and how soon leftovers are swept.
 */
const IDLE_MS = 5_000

/** The workspace as a batch of rows sees it: its plan, its domains, its tags by name. */
interface Workspace {
  readonly id: string
  readonly plan: Plan
  readonly primaryHost: string
  readonly hosts: ReadonlyMap<string, string>
  readonly tags: ReadonlyMap<string, string>
}

const loadWorkspace = (workspaceId: string) =>
  Effect.gen(function*() {
    const [ws] = yield* query((sql) => sql<{ plan: Plan }[]>`SELECT plan FROM workspaces WHERE id = ${workspaceId}`)
    const domains = yield* query((sql) =>
      sql<{ id: string; host: string; is_primary: boolean }[]>`SELECT id, host, is_primary FROM domains WHERE workspace_id = ${workspaceId}`)
    const tags = yield* query((sql) => sql<{ id: string; name: string }[]>`SELECT id, name FROM tags WHERE workspace_id = ${workspaceId}`)
    if (ws === undefined) return undefined
    return {
      id: workspaceId,
      plan: ws.plan,
      primaryHost: domains.find((d) => d.is_primary)?.host ?? "",
      hosts: new Map(domains.map((d) => [d.host, d.id])),
      tags: new Map(tags.map((t) => [t.name.toLowerCase(), t.id]))
    } satisfies Workspace
  })

type ErrorBody = { code: string; message: string; issues?: ReadonlyArray<FieldIssue> }
type Outcome = "created" | "skipped" | { readonly error: ErrorBody }

const bodyOf = (error: { code: string; message: string; issues?: ReadonlyArray<FieldIssue> | undefined }): ErrorBody =>
  error.issues === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, issues: error.issues }

/**
 * Rows created in one transaction: one commit for all, short enough not to hold the database
 * long. The embedded database runs one transaction at a time for everyone: 10 take it for tens of
 * milliseconds (25 took it for 200 to 400 ms on a busy machine); PostgreSQL serves others meanwhile.
 */
const createChunk = (kind: "embedded" | "postgres") => (kind === "embedded" ? 10 : 25)

/** A row ready to create, and the key its url is deduplicated by when it has no slug. */
interface Prepared {
  readonly input: LinkCreate
  readonly urlKey: { readonly domainId: string; readonly url: string } | undefined
}

/** One row as POST /v1/links would take it (same validation and plan gates), up to the create: its input, or its failure. */
const prepareRow = (ws: Workspace, data: ImportRow) =>
  Effect.gen(function*() {
    const host = data.domain !== undefined && ws.hosts.has(data.domain) ? data.domain : undefined
    const tagIds: Array<string> = []
    for (const [i, name] of (data.tagNames ?? []).entries()) {
      const id = ws.tags.get(name.toLowerCase())
      if (id === undefined) {
        return yield* new TagUnknown(unknownReference(["tags", i], `No tag named ${JSON.stringify(name)} in this workspace`))
      }
      tagIds.push(id)
    }
    const input = yield* decodeLinkCreate({
      ...data.input,
      ...(host === undefined ? {} : { domain: host }),
      ...(tagIds.length === 0 ? {} : { tagIds })
    })
    const denied = checkLinkPlan(ws.plan, input)
    if (denied !== undefined) return yield* denied
    const urlKey = input.slug === undefined ? { domainId: ws.hosts.get(host ?? ws.primaryHost) ?? "", url: input.url } : undefined
    return { input, urlKey } satisfies Prepared
  }).pipe(Effect.catch((error) => Effect.succeed({ error: bodyOf(error) })))

/** Which of these domain and url pairs already have a link: one query for a batch. */
const existingUrls = (keys: ReadonlyArray<{ readonly domainId: string; readonly url: string }>) =>
  keys.length === 0
    ? Effect.succeed(new Set<string>())
    : query((sql) =>
      sql<{ domain_id: string; url: string }[]>`
        SELECT DISTINCT l.domain_id, l.url
        FROM unnest(${keys.map((k) => k.domainId)}::text[], ${keys.map((k) => k.url)}::text[]) AS c(domain_id, url)
        JOIN links l ON l.domain_id = c.domain_id AND md5(l.url) = md5(c.url) AND l.url = c.url`
    ).pipe(Effect.map((rows) => new Set(rows.map((r) => `${r.domain_id} ${r.url}`))))

/** A create's failure as the row's outcome: a chosen slug already taken means the row was imported before. */
const outcomeOf = (data: ImportRow, result: Result.Result<unknown, CreateFailure>): Outcome => {
  if (Result.isSuccess(result)) return "created"
  if (result.failure._tag === "SlugTaken" && data.input.slug !== undefined) return "skipped"
  return { error: bodyOf(result.failure) }
}

/**
 * The outcome of each row of a batch, in order; the creates run createChunk to a transaction. A
 * row without a slug whose url the domain already has a link to is skipped (and so is the second
 * of two such rows in one batch): running a file again creates nothing twice.
 */
const importRows = (
  links: LinkRepository["Service"],
  ws: Workspace,
  rows: ReadonlyArray<PieceRow>,
  database: { readonly kind: "embedded" | "postgres"; readonly pace: <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> }
) =>
  Effect.gen(function*() {
    const outcomes: Array<Outcome> = []
    const prepared: Array<Prepared | undefined> = []
    for (const [index, row] of rows.entries()) {
      const ready = "error" in row ? row : yield* prepareRow(ws, row.data)
      if ("error" in ready) outcomes[index] = { error: ready.error }
      else prepared[index] = ready
    }
    const existing = yield* existingUrls(prepared.flatMap((p) => (p?.urlKey === undefined ? [] : [p.urlKey])))
    const toCreate: Array<{ index: number; input: LinkCreate; data: ImportRow }> = []
    for (const [index, ready] of prepared.entries()) {
      if (ready === undefined) continue
      if (ready.urlKey !== undefined) {
        const key = `${ready.urlKey.domainId} ${ready.urlKey.url}`
        if (existing.has(key)) {
          outcomes[index] = "skipped"
          continue
        }
        existing.add(key)
      }
      toCreate.push({ index, input: ready.input, data: (rows[index] as { data: ImportRow }).data })
    }
    const size = createChunk(database.kind)
    for (let i = 0; i < toCreate.length; i += size) {
      const chunk = toCreate.slice(i, i + size)
      const results = yield* database.pace(links.createMany({ workspaceId: ws.id, plan: ws.plan }, chunk.map((item) => item.input)))
      for (const [j, result] of results.entries()) outcomes[chunk[j]!.index] = outcomeOf(chunk[j]!.data, result)
    }
    return outcomes
  })

/**
 * Runs import jobs: IMPORT_RUNNERS fibers each claim a job (fairly across workspaces, see claim),
 * work on it for a turn of TURN_MS, recording progress with every batch of BATCH rows and renewing
 * the lease, then give the lease back and claim again. One runner at a time per job (the lease),
 * one job at a time per workspace. A process that dies mid-job leaves the lease to lapse; another
 * resumes after the last batch recorded. Rows are read a stored piece at a time, never the file.
 */
export const ImportRunner = Layer.effectDiscard(Effect.gen(function*() {
  const jobs = yield* ImportJobRepository
  const links = yield* LinkRepository
  const database = yield* Database
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`
  /**
   * The embedded database is one session that runs its statements on this process's event loop: a
   * request that arrives during a transaction waits for all of it. Imports create their links one
   * transaction at a time across this process's runners, and each is followed by a pause as long
   * as it took, so the API and the engine always have at least half of the database's time.
   * PostgreSQL serves the pool's other connections meanwhile.
   */
  const turnstile = yield* Semaphore.make(1)
  const pace = <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    database.kind !== "embedded"
      ? work
      : turnstile.withPermits(1)(Effect.suspend(() => {
        const started = Date.now()
        return Effect.tap(work, () => Effect.sleep(Date.now() - started))
      }))

  /** A job uploaded before files were stored in pieces: stored in pieces now, once. */
  const adoptLegacy = (job: ClaimedJob) =>
    Effect.gen(function*() {
      const upload = yield* Effect.result(parseUpload(yield* jobs.legacySource(job.id)))
      // It was checked when it was uploaded; a file that no longer reads has nothing left to run.
      if (Result.isFailure(upload)) return undefined
      for (const piece of upload.success.pieces) {
        if (piece.firstRow + piece.rows.length > job.rowsDone) yield* jobs.storePiece(job.id, piece)
      }
      yield* jobs.adoptLegacy(job.id, upload.success.headers)
      return upload.success.headers
    })

  const runTurn = (job: ClaimedJob) =>
    Effect.gen(function*() {
      const headers = job.headers ?? (yield* adoptLegacy(job))
      if (headers === undefined) return yield* jobs.finish(job.id, owner)
      const columns = mapColumns(headers)
      const turnEnds = Date.now() + TURN_MS
      let rowsDone = job.rowsDone
      let piece: { firstRow: number; rows: Array<PieceRow> } | undefined
      for (;;) {
        if (piece === undefined || rowsDone >= piece.firstRow + piece.rows.length) {
          const stored = yield* jobs.piece(job.id, rowsDone)
          piece = stored === undefined ? undefined : { firstRow: stored.firstRow, rows: rowsOfPiece(stored, columns) }
        }
        const ws = yield* loadWorkspace(job.workspaceId)
        if (piece === undefined || ws === undefined) return yield* jobs.finish(job.id, owner)
        const rows = piece.rows.slice(rowsDone - piece.firstRow, rowsDone - piece.firstRow + BATCH)
        const progress: { created: number; skipped: number; failures: Array<Progress["failures"][number]> } = { created: 0, skipped: 0, failures: [] }
        for (const [i, outcome] of (yield* importRows(links, ws, rows, { kind: database.kind, pace })).entries()) {
          if (outcome === "created") progress.created++
          else if (outcome === "skipped") progress.skipped++
          else progress.failures.push({ row: rows[i]!.row, error: outcome.error })
        }
        rowsDone += rows.length
        const advanced = yield* jobs.advance(job.id, owner, LEASE_SECONDS, { rowsDone, ...progress })
        if (advanced === "lost") return
        if (advanced === "cancelled") return yield* jobs.finish(job.id, owner)
        if (Date.now() >= turnEnds) return yield* jobs.release(job.id, owner)
      }
    })

  const round = Effect.gen(function*() {
    // What cancelled and abandoned jobs left goes a few pieces a turn, and all of it when idle.
    const job = yield* jobs.claim(owner, LEASE_SECONDS)
    if (job === undefined) {
      while ((yield* jobs.sweep) > 0) {
        // Each call is one short statement; other work runs between them.
      }
      return false
    }
    yield* jobs.sweep
    yield* runTurn(job)
    return true
  }).pipe(Effect.provideService(Database, database), Effect.map((worked) => (worked ? "again" as const : "idle" as const)))
  const runners: Array<PollLoop> = []
  for (let i = 0; i < IMPORT_RUNNERS; i++) runners.push(yield* pollLoop(`import runner ${i + 1}`, round, { idleMs: IDLE_MS }))
  // Every runner: jobs of two workspaces published together start together.
  yield* (yield* ImportsQueued).subscribe(() => {
    for (const runner of runners) runner.wake()
  })
})).pipe(Layer.provide(LinkRepositoryLayer))
