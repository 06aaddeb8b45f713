import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, startBackend } from "../support/backends.ts"
import { apiClient, eventually } from "../support/processes.ts"

/**
 * What an import can find in the database besides its own uploads (PostgreSQL, where the test can
 * write rows): a job queued before files were stored in pieces (its whole file in `source`) is
 * run to the end, and an upload whose process died while storing it is swept, pieces and all.
 */
describe("import jobs left by an older version or a crash (postgres)", () => {
  let backend: Backend
  let sql: postgres.Sql
  let api: ReturnType<typeof apiClient>
  let workspaceId: string

  beforeAll(async () => {
    backend = await startBackend("postgres", {}, { withEngine: false })
    sql = postgres(backend.control.env.DATABASE_URL!, { max: 1, onnotice: () => {} })
    api = apiClient(backend.control.baseUrl, backend.control.firstKey!)
    ;[{ id: workspaceId }] = await sql<{ id: string }[]>`SELECT id FROM workspaces`
  }, 180_000)

  afterAll(async () => {
    await sql?.end()
    await backend?.stop()
  })

  it("runs a job queued with its whole file, as uploads were stored before", async () => {
    const lines = Array.from({ length: 250 }, (_, i) => `legacy-${i},https://example.com/legacy/${i}`)
    await sql`INSERT INTO import_jobs (id, workspace_id, status, total_rows, source)
              VALUES ('imp_legacy', ${workspaceId}, 'queued', 250, ${`slug;url\n${lines.join("\n").replace(/,/g, ";")}\n`})`
    let job: any
    await eventually(async () => {
      job = (await api.get("/v1/links/import/imp_legacy")).body
      return job.status === "done"
    }, 60_000, 200)
    expect(job).toMatchObject({ totalRows: 250, rowsDone: 250, created: 250, failed: 0 })
    expect((await api.get(`/v1/links/info?domain=my-workspace.localhost&slug=legacy-249`)).body.url).toBe("https://example.com/legacy/249")
    const [left] = await sql<{ source: string; pieces: number }[]>`
      SELECT source, (SELECT count(*)::int FROM import_pieces WHERE job_id = 'imp_legacy') AS pieces FROM import_jobs WHERE id = 'imp_legacy'`
    expect(left).toEqual({ source: "", pieces: 0 })
  })

  it("sweeps an upload abandoned mid-way, and never shows or runs it", async () => {
    await sql`INSERT INTO import_jobs (id, workspace_id, status, total_rows, updated_at)
              VALUES ('imp_abandoned', ${workspaceId}, 'uploading', 0, now() - interval '11 minutes')`
    await sql`INSERT INTO import_pieces (job_id, first_row, row_count, body) VALUES ('imp_abandoned', 0, 1, '\\x00'::bytea)`
    await sql`INSERT INTO import_jobs (id, workspace_id, status, total_rows) VALUES ('imp_storing', ${workspaceId}, 'uploading', 0)`
    expect((await api.get("/v1/links/import/imp_abandoned")).status).toBe(404)
    await eventually(async () => (await sql`SELECT 1 FROM import_jobs WHERE id = 'imp_abandoned'`).length === 0, 30_000, 200)
    expect(await sql`SELECT 1 FROM import_pieces WHERE job_id = 'imp_abandoned'`).toHaveLength(0)
    // One still being stored is left alone.
    expect(await sql`SELECT status FROM import_jobs WHERE id = 'imp_storing'`).toEqual([{ status: "uploading" }])
  })
})
