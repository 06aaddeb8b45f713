import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BACKENDS, type Backend, startBackend } from "../support/backends.ts"
import { linksCsv } from "../support/importCsv.ts"
import { apiClient, createWorkspace, eventually } from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/** Large enough that A's jobs take minutes one after another (tens to a few hundred links a second). */
const BIG_ROWS = 5_000
/** "Within seconds" with room for a busy two-core machine: the claim loop idles 1 s, a turn lasts 2 s. */
const SMALL_JOB_WITHIN_MS = 20_000

/**
 * Imports of several workspaces: claimed round-robin (a workspace with queued jobs does not hold
 * back another's), cancelled with DELETE, at most 5 unfinished per workspace, and an upload
 * retried with its Idempotency-Key answered with the job it made.
 */
describe.each(BACKENDS)("imports across workspaces (%s)", (kind) => {
  let backend: Backend
  let a: ReturnType<typeof apiClient>
  let b: ReturnType<typeof apiClient>
  let host: string
  const aJobs: Array<string> = []

  const upload = (client: ReturnType<typeof apiClient>, csv: string, headers: Record<string, string> = {}) =>
    client.post("/v1/links/import", csv, { "content-type": "text/csv", ...headers })
  const job = async (client: ReturnType<typeof apiClient>, id: string) => (await client.get(`/v1/links/import/${id}`)).body

  beforeAll(async () => {
    backend = await startBackend(kind, {}, { withEngine: false })
    a = apiClient(backend.control.baseUrl, backend.control.firstKey!)
    host = (await a.post("/v1/links", { url: "https://example.com/first" })).body.domain
    b = apiClient(backend.control.baseUrl, (await createWorkspace(backend.control.env, "pro", "Workspace B")).apiKey)
  }, 180_000)

  afterAll(async () => {
    await backend?.stop()
  })

  it("finishes another workspace's one-row import within seconds while one workspace has large jobs queued", async () => {
    for (let i = 0; i < 4; i++) {
      const res = await upload(a, linksCsv(BIG_ROWS, { prefix: `fair${i}`, lineBytes: 120 }))
      expect(res.status, JSON.stringify(res.body)).toBe(202)
      aJobs.push(res.body.id)
    }
    const started = Date.now()
    const small = await upload(b, "url\nhttps://example.org/b-only\n")
    expect(small.status).toBe(202)
    let done: any
    await eventually(async () => {
      done = await job(b, small.body.id)
      return done.status === "done"
    }, SMALL_JOB_WITHIN_MS, 200)
    expect(done).toMatchObject({ totalRows: 1, rowsDone: 1, created: 1, failed: 0 })
    console.log(`B's one-row import (${kind}) done after ${Date.now() - started} ms`)
    // A's work was still going on: B did not just wait for it to end.
    const aStates = await Promise.all(aJobs.map((id) => job(a, id)))
    expect(aStates.filter((j) => j.status !== "done").length).toBeGreaterThanOrEqual(3)
    // One workspace's jobs run one at a time, oldest first.
    expect(aStates.slice(1).every((j) => j.rowsDone === 0 || aStates[0].status === "done")).toBe(true)
  })

  it("refuses a sixth unfinished import with limit_reached, and takes it once one is cancelled", async () => {
    const fifth = await upload(a, linksCsv(BIG_ROWS, { prefix: "fair4", lineBytes: 120 }))
    expect(fifth.status, JSON.stringify(fifth.body)).toBe(202)
    aJobs.push(fifth.body.id)
    const sixth = await upload(a, "url\nhttps://example.com/sixth\n")
    expect(sixth.status).toBe(403)
    expect(sixth.body.error).toMatchObject({ code: "limit_reached", message: expect.stringMatching(/5 imports queued or running.*DELETE \/v1\/links\/import/) })

    const cancelled = await a.delete(`/v1/links/import/${aJobs[4]}`)
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(cancelled.body).toMatchObject({ id: aJobs[4], status: "cancelled", finishedAt: expect.any(String) })
    const taken = await upload(a, "url\nhttps://example.com/sixth\n")
    expect(taken.status, JSON.stringify(taken.body)).toBe(202)
    aJobs.push(taken.body.id)
  })

  it("cancels a running import at its next batch: what it created stays, and its counts say so", async () => {
    const first = aJobs[0]!
    await eventually(async () => (await job(a, first)).created > 0, 60_000, 200)
    const cancelled = await a.delete(`/v1/links/import/${first}`)
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(cancelled.body.status).toBe("cancelled")
    // The batch running when it was cancelled may still be recorded; then nothing moves.
    let settled: any
    await eventually(async () => {
      const before = await job(a, first)
      await sleep(3_000)
      settled = await job(a, first)
      return settled.rowsDone === before.rowsDone
    }, 30_000, 0)
    expect(settled).toMatchObject({ status: "cancelled", totalRows: BIG_ROWS })
    expect(settled.rowsDone).toBeLessThan(BIG_ROWS)
    expect(settled.created).toBeGreaterThan(0)
    expect((await a.get(`/v1/links/info?domain=${host}&slug=fair0-0`)).status).toBe(200)
    // Cancelling again answers the cancelled job; the next of A's jobs now runs.
    expect(await a.delete(`/v1/links/import/${first}`)).toMatchObject({ status: 200, body: { status: "cancelled", rowsDone: settled.rowsDone } })
    await eventually(async () => (await job(a, aJobs[1]!)).rowsDone > 0, 60_000, 200)
  })

  it("answers DELETE of a done import 409, of another workspace's or an unknown one 404", async () => {
    const own = await upload(b, "url\nhttps://example.org/b-two\n")
    await eventually(async () => (await job(b, own.body.id)).status === "done", SMALL_JOB_WITHIN_MS, 200)
    const done = await b.delete(`/v1/links/import/${own.body.id}`)
    expect({ status: done.status, code: done.body.error?.code }).toEqual({ status: 409, code: "conflict" })
    expect((await job(b, own.body.id)).status).toBe("done")
    const foreign = await b.delete(`/v1/links/import/${aJobs[1]}`)
    expect({ status: foreign.status, code: foreign.body.error?.code }).toEqual({ status: 404, code: "not_found" })
    expect((await b.delete("/v1/links/import/imp_unknown")).status).toBe(404)
  })

  it("answers a retried upload with the job its Idempotency-Key made, and refuses a malformed key", async () => {
    const first = await upload(b, "url\nhttps://example.org/once\n", { "idempotency-key": "retry-1" })
    expect(first.status).toBe(202)
    const again = await upload(b, "url\nhttps://example.org/once\n", { "idempotency-key": "retry-1" })
    expect({ status: again.status, id: again.body.id }).toEqual({ status: 202, id: first.body.id })
    const other = await upload(b, "url\nhttps://example.org/twice\n", { "idempotency-key": "retry-2" })
    expect(other.body.id).not.toBe(first.body.id)
    // The same key in another workspace is another upload.
    const elsewhere = await upload(a, "url\nhttps://example.com/once\n", { "idempotency-key": "retry-1" })
    expect(elsewhere.body.id).not.toBe(first.body.id)
    const bad = await upload(b, "url\nhttps://example.org/x\n", { "idempotency-key": "x".repeat(256) })
    expect({ status: bad.status, code: bad.body.error?.code }).toEqual({ status: 400, code: "bad_request" })
    for (const id of aJobs) await a.delete(`/v1/links/import/${id}`)
  })
})
