import { Effect, Layer, Result } from "effect"
import { hostname } from "node:os"
import { randomBytes } from "node:crypto"
import { Database } from "../../../shared/db/Database.ts"
import { type FieldIssue, type ServiceUnavailable, unknownReference } from "../../api/errors.ts"
import { query } from "../../db/sql.ts"
import type { Plan } from "../../plans/plans.ts"
import { decodeLinkCreate } from "../bulk.ts"
import { TagUnknown } from "../errors.ts"
import { checkLinkPlan } from "../linkInput.ts"
import { type CreateFailure, LinkRepository, LinkRepositoryLayer } from "../LinkRepository.ts"
import type { LinkCreate } from "../schema.ts"
import type { ImportRow } from "./columns.ts"
import { ImportJobRepository, type Progress } from "./ImportJobRepository.ts"
import { parseUpload } from "./parseUpload.ts"

/** Rows recorded at a time: after a crash, at most these are run again (and skipped). */
const BATCH = 100
/** A runner that stops renewing its lease for this long loses the job to another control process. */
export const LEASE_SECONDS = 30
const IDLE_MS = 1_000

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

/** Rows created in one transaction: one commit for all, short enough not to hold the database long. */
const CREATE_CHUNK = 25

/**
 * One row as POST /v1/links would take it (same validation and plan gates), up to the create: the
 * link input, or the row's outcome already. A row without a slug whose url the domain already
 * has a link to is skipped (and so is the second of two such rows in one batch): running a file
 * again creates nothing twice.
 */
const prepareRow = (ws: Workspace, data: ImportRow, batchUrls: Set<string>) =>
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
    if (input.slug === undefined) {
      const domainId = ws.hosts.get(host ?? ws.primaryHost) ?? ""
      const key = `${domainId} ${input.url}`
      if (batchUrls.has(key)) return "skipped" as const
      const [existing] = yield* query((sql) =>
        sql`SELECT 1 FROM links WHERE domain_id = ${domainId} AND md5(url) = md5(${input.url}) AND url = ${input.url} LIMIT 1`)
      if (existing !== undefined) return "skipped" as const
      batchUrls.add(key)
    }
    return input
  }).pipe(
    Effect.catch((error): Effect.Effect<Outcome, ServiceUnavailable> =>
      error._tag === "ServiceUnavailable" ? Effect.fail(error) : Effect.succeed({ error: bodyOf(error) }))
  )

/** A create's failure as the row's outcome: a chosen slug already taken means the row was imported before. */
const outcomeOf = (data: ImportRow, result: Result.Result<unknown, CreateFailure>): Outcome => {
  if (Result.isSuccess(result)) return "created"
  if (result.failure._tag === "SlugTaken" && data.input.slug !== undefined) return "skipped"
  return { error: bodyOf(result.failure) }
}

/** The outcome of each row of a batch, in order; the creates run CREATE_CHUNK to a transaction. */
const importRows = (links: LinkRepository["Service"], ws: Workspace, rows: ReadonlyArray<{ data: ImportRow }>) =>
  Effect.gen(function*() {
    const batchUrls = new Set<string>()
    const outcomes: Array<Outcome> = []
    const toCreate: Array<{ index: number; input: LinkCreate }> = []
    for (const [index, { data }] of rows.entries()) {
      const prepared = yield* prepareRow(ws, data, batchUrls)
      if (typeof prepared === "string" || "error" in prepared) outcomes[index] = prepared
      else toCreate.push({ index, input: prepared })
    }
    for (let i = 0; i < toCreate.length; i += CREATE_CHUNK) {
      const chunk = toCreate.slice(i, i + CREATE_CHUNK)
      const results = yield* links.createMany({ workspaceId: ws.id, plan: ws.plan }, chunk.map((item) => item.input))
      for (const [j, result] of results.entries()) outcomes[chunk[j]!.index] = outcomeOf(rows[chunk[j]!.index]!.data, result)
    }
    return outcomes
  })

/**
 * Runs import jobs: claims the oldest unfinished one (any control process may, one at a time per
 * job), creates its rows in order, and records progress with every batch, renewing its lease. A
 * process that dies mid-job leaves the lease to lapse; another one resumes after the last batch
 * recorded.
 */
export const ImportRunner = Layer.effectDiscard(Effect.gen(function*() {
  const jobs = yield* ImportJobRepository
  const links = yield* LinkRepository
  const database = yield* Database
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`

  const runJob = (job: { id: string; workspaceId: string; rowsDone: number }) =>
    Effect.gen(function*() {
      // The file was checked when it was uploaded: reading it again gives the same rows.
      const upload = parseUpload(yield* jobs.source(job.id))
      const all = "rows" in upload ? upload.rows : []
      let rowsDone = job.rowsDone
      for (;;) {
        const ws = yield* loadWorkspace(job.workspaceId)
        const rows = ws === undefined ? [] : all.slice(rowsDone, rowsDone + BATCH)
        if (rows.length === 0) return yield* jobs.finish(job.id, owner)
        const progress: { created: number; skipped: number; failures: Array<Progress["failures"][number]> } = { created: 0, skipped: 0, failures: [] }
        for (const [i, outcome] of (yield* importRows(links, ws!, rows)).entries()) {
          if (outcome === "created") progress.created++
          else if (outcome === "skipped") progress.skipped++
          else progress.failures.push({ row: rows[i]!.row, error: outcome.error })
        }
        rowsDone += rows.length
        const held = yield* jobs.advance(job.id, owner, LEASE_SECONDS, { rowsDone, ...progress })
        if (!held) return
      }
    })

  const round = Effect.gen(function*() {
    const job = yield* jobs.claim(owner, LEASE_SECONDS)
    if (job === undefined) return false
    yield* runJob(job)
    return true
  }).pipe(
    Effect.provideService(Database, database),
    Effect.catchCause((cause) => Effect.as(Effect.logWarning("import round failed", cause), false))
  )
  yield* Effect.forkScoped(Effect.forever(Effect.flatMap(round, (worked) => (worked ? Effect.void : Effect.sleep(IDLE_MS)))))
})).pipe(Layer.provide(LinkRepositoryLayer))
