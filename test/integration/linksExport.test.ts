import { parse } from "csv-parse/sync"
import { readFileSync } from "node:fs"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EXPORT_COLUMNS } from "../../control/links/export/columns.ts"
import { BACKENDS, type Backend, startBackend } from "../support/backends.ts"
import { apiClient, createWorkspace, eventually } from "../support/processes.ts"

// Room for control itself (API, dashboard, jobs, webhooks, metrics) but not for a held ≈ 55 MB export on top.
const HEAP_MB = 256

const csvOf = async (res: Response) => parse(await res.text(), { columns: true }) as Array<Record<string, string>>

/** GET /v1/links/export: every link the filters match, every field, as CSV. */
describe.each(BACKENDS)("links export (%s)", (kind) => {
  let backend: Backend
  let api: ReturnType<typeof apiClient>
  const exportCsv = (query = "") =>
    fetch(`${backend.control.baseUrl}/v1/links/export${query}`, { headers: { authorization: `Bearer ${backend.control.firstKey}` } })

  beforeAll(async () => {
    // A small heap: a server that held an export (its rows or its text) would run out of it.
    backend = await startBackend(kind, { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` }, { withEngine: false })
    api = apiClient(backend.control.baseUrl, backend.control.firstKey!)
  }, 180_000)

  afterAll(async () => {
    await backend?.stop()
  })

  it("exports every field of every link, rules and tags as JSON cells, and filters as the listing does", async () => {
    const tag = await api.post("/v1/tags", { name: "campaign", color: "blue" })
    expect(tag.status).toBe(201)
    const rich = await api.post("/v1/links", {
      url: "https://example.com/rich?a=1",
      slug: "rich",
      title: 'A "quoted", title\nwith a line break',
      tagIds: [tag.body.id],
      utm: { source: "news" },
      geoRules: [{ country: "fr", url: "https://example.fr/" }],
      deviceRules: [{ device: "ios", url: "https://apps.apple.com/x" }],
      abTest: { variants: [{ url: "https://example.com/rich?a=1", weight: 50 }, { url: "https://example.com/b", weight: 50 }], endsAt: null },
      password: "secret"
    })
    expect(rich.status, JSON.stringify(rich.body)).toBe(201)
    const plain = await api.post("/v1/links", { url: "https://example.com/plain", slug: "plain" })
    expect(plain.status).toBe(201)

    const res = await exportCsv()
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/)
    expect(res.headers.get("content-disposition")).toContain("links.csv")
    expect(res.headers.get("ratelimit-limit")).toMatch(/^\d+$/)
    const text = await res.clone().text()
    expect(text.split("\r\n")[0]).toBe(EXPORT_COLUMNS.join(","))
    const rows = await csvOf(res)
    expect(rows.map((row) => row.slug)).toEqual(["plain", "rich"])
    const row = rows[1]
    expect(row).toMatchObject({
      id: rich.body.id,
      domain: rich.body.domain,
      shortLink: rich.body.shortLink,
      url: "https://example.com/rich?a=1",
      title: 'A "quoted", title\nwith a line break',
      description: "",
      redirectType: "302",
      passQuery: "false",
      hasPassword: "true",
      createdAt: rich.body.createdAt
    })
    expect(JSON.parse(row.tags)).toEqual([{ id: tag.body.id, name: "campaign", color: "blue" }])
    expect(JSON.parse(row.geoRules)).toEqual([{ country: "FR", url: "https://example.fr/" }])
    expect(JSON.parse(row.abTest)).toEqual(rich.body.abTest)
    expect(JSON.parse(row.utm)).toEqual({ source: "news" })

    const filtered = await csvOf(await exportCsv(`?tagIds=${tag.body.id}`))
    expect(filtered.map((r) => r.slug)).toEqual(["rich"])
    expect((await csvOf(await exportCsv("?search=plain"))).map((r) => r.slug)).toEqual(["plain"])
    expect(await csvOf(await exportCsv("?domain=elsewhere.example"))).toEqual([])
  })

  it("writes formula-like cells with a leading ' that an import into another workspace reads back exactly", async () => {
    const title = '=HYPERLINK("http://evil.example","x")'
    const tag = await api.post("/v1/tags", { name: "@SUM(1)" })
    expect(tag.status).toBe(201)
    const created = await api.post("/v1/links", { url: "https://example.com/formula", slug: "-abc", title, description: "+1", tagIds: [tag.body.id] })
    expect(created.status, JSON.stringify(created.body)).toBe(201)

    const csv = await (await exportCsv(`?tagIds=${tag.body.id}`)).text()
    const [header, line] = parse(csv) as Array<Array<string>>
    const cellOf = (column: string) => line[header.indexOf(column)]
    expect(cellOf("title")).toBe(`'${title}`)
    expect(cellOf("slug")).toBe("'-abc")
    expect(cellOf("description")).toBe("'+1")
    // The tag's name is inside a JSON list: the cell starts with `[`, which no spreadsheet runs.
    expect(cellOf("tags")).toMatch(/^\[/)

    const other = await createWorkspace(backend.control.env, "pro", "Formula import")
    const otherApi = apiClient(backend.control.baseUrl, other.apiKey)
    expect((await otherApi.post("/v1/tags", { name: "@SUM(1)" })).status).toBe(201)
    const job = await otherApi.post("/v1/links/import", csv, { "content-type": "text/csv" })
    expect(job.status, JSON.stringify(job.body)).toBe(202)
    let status: any
    await eventually(async () => {
      status = (await otherApi.get(`/v1/links/import/${job.body.id}`)).body
      return status.status === "done"
    }, 60_000, 200)
    expect(status).toMatchObject({ created: 1, failed: 0 })
    const copy = await otherApi.get(`/v1/links/info?domain=${other.domain}&slug=-abc`)
    expect(copy.status, JSON.stringify(copy.body)).toBe(200)
    expect(copy.body).toMatchObject({ title, description: "+1", tags: [expect.objectContaining({ name: "@SUM(1)" })] })
  })

  it("refuses bad filters with a 422", async () => {
    const res = await exportCsv(`?search=${"x".repeat(101)}`)
    expect(res.status).toBe(422)
    expect((await res.json()).error.code).toBe("unprocessable_entity")
  })

  it.runIf(kind === "postgres")("streams a large workspace in batches without holding it in memory", async () => {
    const sql = postgres(backend.control.env.DATABASE_URL!, { max: 1, onnotice: () => {} })
    const COUNT = 60_000
    try {
      const [domain] = await sql<{ id: string; workspace_id: string }[]>`SELECT id, workspace_id FROM domains WHERE is_primary LIMIT 1`
      const padding = "p".repeat(800)
      await sql`
        INSERT INTO links (id, workspace_id, domain_id, slug, url, title, created_at)
        SELECT 'lnk_bulk' || g, ${domain.workspace_id}, ${domain.id}, 'bulk-' || g, 'https://example.com/' || g, ${padding},
               now() - make_interval(secs => g)
        FROM generate_series(1, ${COUNT}) AS g`
    } finally {
      await sql.end()
    }
    const pid = backend.control.child.pid!
    const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024
    const before = peakRss()
    const res = await exportCsv()
    expect(res.status).toBe(200)
    // Read as it comes, counting lines: the test holds no more of it than the server should.
    const reader = res.body!.getReader()
    let bytes = 0
    let lines = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      bytes += value.length
      for (const byte of value) if (byte === 10) lines++
    }
    // The header, the large workspace, the links of the tests before (two, and the formula test's
    // one) and the line break in one's title.
    expect(lines).toBe(1 + COUNT + 3 + 1)
    expect(bytes).toBeGreaterThan(COUNT * 800)
    // The export is ≈ 55 MB: holding its text alone would grow the server by as much (its rows by
    // more), where streaming it in batches grows it by the batches in flight and the allocator's
    // slack (about 30 MB measured, whatever the young generation's size).
    expect(peakRss() - before).toBeLessThan(bytes * 0.8)
  }, 600_000)
})
