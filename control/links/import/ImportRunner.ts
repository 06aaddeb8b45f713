import { Effect, Layer } from "effect"
import { hostname } from "node:os"
import { randomBytes } from "node:crypto"
import { Database } from "../../../shared/db/Database.ts"
import { type FieldIssue, type ServiceUnavailable, unknownReference } from "../../api/errors.ts"
import { query } from "../../db/sql.ts"
import type { Plan } from "../../plans/plans.ts"
import { decodeLinkCreate } from "../bulk.ts"
import { TagUnknown } from "../errors.ts"
import { checkLinkPlan } from "../linkInput.ts"
import { LinkRepository, LinkRepositoryLayer } from "../LinkRepository.ts"
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

/**
 * One row, as POST /v1/links would take it (same validation, plan gates and quota). A row whose
 * slug is taken on its domain is skipped, and so is a row without a slug whose url the domain
 * already has a link to: running a file again creates nothing twice.
 */
const importRow = (links: LinkRepository["Service"], ws: Workspace, data: ImportRow): Effect.Effect<Outcome, ServiceUnavailable, Database> =>
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
      const domainId = ws.hosts.get(host ?? ws.primaryHost)
      const [existing] = yield* query((sql) =>
        sql`SELECT 1 FROM links WHERE domain_id = ${domainId ?? ""} AND md5(url) = md5(${input.url}) AND url = ${input.url} LIMIT 1`)
      if (existing !== undefined) return "skipped" as const
    }
    yield* links.create({ workspaceId: ws.id, plan: ws.plan }, input)
    return "created" as const
  }).pipe(
    Effect.catch((error): Effect.Effect<Outcome, ServiceUnavailable> => {
      if (error._tag === "ServiceUnavailable") return Effect.fail(error)
      if (error._tag === "SlugTaken" && (data.input.slug !== undefined)) return Effect.succeed("skipped")
      return Effect.succeed({ error: bodyOf(error) })
    })
  )

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
        for (const { row, data } of rows) {
          const outcome = yield* importRow(links, ws!, data)
          if (outcome === "created") progress.created++
          else if (outcome === "skipped") progress.skipped++
          else progress.failures.push({ row, error: outcome.error })
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
