import postgres from "postgres"
import { afterAll, describe, expect, it } from "vitest"
import { apiClient, createTestDatabase, eventually, removeDir, startControl, tempDir } from "../support/processes.ts"

const ROWS = 3_000

/**
 * An import whose control process dies mid-job is finished by another one once the lease lapses,
 * resuming after the last batch recorded: every row ends up done, and no link exists twice.
 */
describe("an import taken over after a crash (PostgreSQL)", () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step()
  })

  it("is finished by another control process, nothing created twice", async () => {
    const db = await createTestDatabase()
    cleanup.push(db.drop)
    const dirs = [await tempDir(), await tempDir()]
    cleanup.push(() => Promise.all(dirs.map(removeDir)))
    const first = await startControl({ DATABASE_URL: db.url, RICOCHET_DATA_DIR: dirs[0] }, true)
    const key = first.firstKey!
    const lines = Array.from({ length: ROWS }, (_, i) => (i % 2 === 0 ? `takeover-${i},https://example.com/${i}` : `,https://example.com/${i}`))
    const res = await apiClient(first.baseUrl, key).post("/v1/links/import", `slug,url\n${lines.join("\n")}\n`, { "content-type": "text/csv" })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    const status = async (baseUrl: string) => (await apiClient(baseUrl, key).get(`/v1/links/import/${res.body.id}`)).body

    await eventually(async () => (await status(first.baseUrl)).rowsDone >= 200, 120_000, 100)
    await first.stop("SIGKILL")
    const second = await startControl({ DATABASE_URL: db.url, RICOCHET_DATA_DIR: dirs[1] }, true)
    cleanup.push(() => second.stop())
    expect((await status(second.baseUrl)).rowsDone).toBeLessThan(ROWS)

    let job: any
    await eventually(async () => {
      job = await status(second.baseUrl)
      return job.status === "done"
    }, 180_000, 500)
    expect(job).toMatchObject({ totalRows: ROWS, rowsDone: ROWS, failed: 0 })
    expect(job.created + job.skipped).toBe(ROWS)

    const sql = postgres(db.url, { max: 1, onnotice: () => {} })
    try {
      const [counts] = await sql<{ n: number; urls: number }[]>`SELECT count(*)::int AS n, count(DISTINCT url)::int AS urls FROM links`
      expect(counts).toEqual({ n: ROWS, urls: ROWS })
      // A finished job keeps its report, not its file.
      const [left] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM import_pieces`
      expect(left.n).toBe(0)
    } finally {
      await sql.end()
    }
  }, 400_000)
})
