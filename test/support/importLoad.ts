import { expect } from "vitest"
import type { Backend } from "./backends.ts"
import { linksCsv } from "./importCsv.ts"
import { apiClient, createWorkspace, visit } from "./processes.ts"
import { sleep } from "./time.ts"

/** The goals: the upload answered within 5 s, another workspace's listing p95 within 500 ms. */
export const UPLOAD_WITHIN_MS = 5_000
export const OTHER_P95_WITHIN_MS = 500
/** One listing every 250 ms stays under the 300-a-minute rate limit of the other workspace. */
const LIST_EVERY_MS = 250
/** Links of the other workspace, none ever visited: each visit during the import is a cache miss. */
const UNCACHED_LINKS = 40

export interface LoadReport {
  readonly uploadMs: number
  readonly jobId: string
  readonly listings: number
  readonly p50: number
  readonly p95: number
  readonly worstMs: number
  readonly redirects: number
  readonly rowsDone: number
  /** Listings and visits that did not answer as they should (each is also a failure of the test). */
  readonly failures: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!

/**
 * Workspace A uploads an import of `rows` links (with an Idempotency-Key) while workspace B lists
 * its links every 250 ms and visits one of its never-visited links on the engine every second,
 * from the upload's start until `runMs` after its answer. Asserts the goals; then A's retry
 * with the same key must get the same job, and the job is cancelled (it need not finish).
 */
export const importUnderLoad = async (backend: Backend, rows: number, runMs: number): Promise<LoadReport> => {
  const { control } = backend
  const a = apiClient(control.baseUrl, control.firstKey!)
  const other = await createWorkspace(control.env, "pro", "Other workspace")
  const b = apiClient(control.baseUrl, other.apiKey)
  const created = await b.post("/v1/links/bulk", {
    links: Array.from({ length: UNCACHED_LINKS }, (_, i) => ({ url: `https://example.org/other/${i}`, slug: `other-${i}` }))
  })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  const engine = `http://127.0.0.1:${control.env.RICOCHET_ENGINE_PORT}`
  const csv = linksCsv(rows)

  let running = true
  const latencies: Array<number> = []
  const failures: Array<string> = []
  const lister = (async () => {
    while (running) {
      const start = Date.now()
      const res = await b.get("/v1/links?limit=50")
      latencies.push(Date.now() - start)
      if (res.status !== 200) failures.push(`GET /v1/links: ${res.status} ${JSON.stringify(res.body)}`)
      await sleep(Math.max(0, LIST_EVERY_MS - (Date.now() - start)))
    }
  })()
  let redirects = 0
  const visitor = (async () => {
    for (let i = 0; running && i < UNCACHED_LINKS; i++) {
      const answer = await visit(engine, other.domain, `/other-${i}`)
      if (answer.status === 302 && answer.location === `https://example.org/other/${i}`) redirects++
      else failures.push(`engine /other-${i}: ${answer.status} ${answer.body.slice(0, 200)}`)
      await sleep(1_000)
    }
  })()

  const key = `load-${Date.now()}`
  const started = Date.now()
  const upload = await a.post("/v1/links/import", csv, { "content-type": "text/csv", "idempotency-key": key })
  const uploadMs = Date.now() - started
  await sleep(runMs)
  running = false
  await Promise.all([lister, visitor])

  const sorted = [...latencies].sort((x, y) => x - y)
  const report: LoadReport = {
    uploadMs,
    jobId: upload.body.id,
    listings: latencies.length,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    worstMs: sorted[sorted.length - 1]!,
    redirects,
    rowsDone: (await a.get(`/v1/links/import/${upload.body.id}`)).body.rowsDone,
    failures: failures.length
  }
  console.log(`import of ${rows} rows (${(csv.length / 1e6).toFixed(1)} MB) under load: ${JSON.stringify(report)}`)

  expect(upload.status, JSON.stringify(upload.body)).toBe(202)
  expect(failures.slice(0, 10)).toEqual([])
  expect(uploadMs).toBeLessThan(UPLOAD_WITHIN_MS)
  expect(report.p95).toBeLessThanOrEqual(OTHER_P95_WITHIN_MS)
  expect(redirects).toBeGreaterThan(0)
  // The job did run meanwhile: fairness is not bought by stopping the import.
  expect(report.rowsDone).toBeGreaterThan(0)
  const retry = await a.post("/v1/links/import", "url\nhttps://example.com/not-this-one\n", { "content-type": "text/csv", "idempotency-key": key })
  expect({ status: retry.status, id: retry.body.id }).toEqual({ status: 202, id: upload.body.id })
  const cancelled = await a.delete(`/v1/links/import/${upload.body.id}`)
  expect(cancelled.body.status, JSON.stringify(cancelled.body)).toBe("cancelled")
  return report
}
