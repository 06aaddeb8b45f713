import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BACKENDS, type Backend, startBackend } from "../support/backends.ts"
import { apiClient, eventually } from "../support/processes.ts"

type Res = { status: number; body: any }

/** POST /v1/links/import and GET /v1/links/import/{id}: a CSV becomes links through a job. */
describe.each(BACKENDS)("links import (%s)", (kind) => {
  let backend: Backend
  let api: ReturnType<typeof apiClient>
  let host: string

  const upload = (csv: string, contentType = "text/csv") => api.post("/v1/links/import", csv, { "content-type": contentType })
  const finished = async (res: Res) => {
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^imp_/), status: "queued" })
    let job: any
    await eventually(async () => {
      job = (await api.get(`/v1/links/import/${res.body.id}`)).body
      return job.status === "done"
    }, 60_000, 200)
    return job
  }

  beforeAll(async () => {
    backend = await startBackend(kind, {}, { withEngine: false })
    api = apiClient(backend.control.baseUrl, backend.control.firstKey!)
    host = (await api.post("/v1/links", { url: "https://example.com/first" })).body.domain
  }, 180_000)

  afterAll(async () => {
    await backend?.stop()
  })

  it("imports our own export into the same workspace: every row skipped, nothing twice", async () => {
    const tag = await api.post("/v1/tags", { name: "Imported" })
    await api.post("/v1/links", { url: "https://example.com/own", slug: "own", tagIds: [tag.body.id], geoRules: [{ country: "DE", url: "https://example.de/" }] })
    const exported = await (await fetch(`${backend.control.baseUrl}/v1/links/export`, { headers: { authorization: `Bearer ${backend.control.firstKey}` } })).text()
    const before = (await api.get("/v1/links?limit=100")).body.data.length
    const job = await finished(await upload(exported))
    expect(job).toMatchObject({ status: "done", totalRows: before, rowsDone: before, created: 0, skipped: before, failed: 0, failures: [] })
    expect(job.ignoredColumns).toEqual(["id", "folderId", "hasPassword", "createdAt", "updatedAt"])
    expect((await api.get("/v1/links?limit=100")).body.data.length).toBe(before)
  })

  it("maps Bitly's, Dub's and Shlink's columns, and reports failed rows with their number and error body", async () => {
    const shlink = [
      "createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits",
      `2024-01-01T00:00:00+00:00,,sh-one,https://s.example/sh-one,https://example.com/shlink-1,Shlink one,imported|other,3`,
      `2024-01-01T00:00:00+00:00,,sh-two,https://s.example/sh-two,https://example.com/shlink-2,"Title, with comma",,0`,
      `2024-01-01T00:00:00+00:00,,bad slug!,,https://example.com/shlink-3,,,0`,
      `2024-01-01T00:00:00+00:00,,sh-four,,javascript:alert(1),,,0`
    ].join("\n")
    const shlinkJob = await finished(await upload(shlink))
    expect(shlinkJob).toMatchObject({ totalRows: 4, rowsDone: 4, created: 1, skipped: 0, failed: 3 })
    expect(shlinkJob.ignoredColumns).toEqual(["createdAt", "visits"])
    expect(shlinkJob.failures.map((f: any) => [f.row, f.error.code, f.error.issues?.[0]?.path])).toEqual([
      [2, "unprocessable_entity", ["tags", 1]],
      [4, "unprocessable_entity", ["slug"]],
      [5, "unprocessable_entity", ["url"]]
    ])
    const two = await api.get(`/v1/links/info?domain=${host}&slug=sh-two`)
    expect(two.body).toMatchObject({ url: "https://example.com/shlink-2", title: "Title, with comma" })

    const bitly = ["title,long_url,link,created_at,clicks", `Bitly,https://example.com/bitly,https://bit.ly/3AbCdE,2024-01-01,9`].join("\r\n")
    expect(await finished(await upload(bitly))).toMatchObject({ created: 1, failed: 0 })
    // bit.ly is not a domain of the workspace: the link keeps its back-half on the primary domain.
    expect((await api.get(`/v1/links/info?domain=${host}&slug=3AbCdE`)).body.url).toBe("https://example.com/bitly")

    const form = new FormData()
    form.set("file", new Blob([["key,url,utm_source,tags", "dub-key,https://example.com/dub,newsletter,Imported", ",https://example.com/dub-random,,"].join("\n")], { type: "text/csv" }), "dub.csv")
    const dubJob = await finished(await api.post("/v1/links/import", form))
    expect(dubJob).toMatchObject({ created: 2, failed: 0, skipped: 0 })
    const dub = await api.get(`/v1/links/info?domain=${host}&slug=dub-key`)
    expect(dub.body).toMatchObject({ utm: { source: "newsletter" }, tags: [expect.objectContaining({ name: "Imported" })] })

    // Again: the slugs are taken and the random-slug row's url is there already.
    expect(await finished(await api.post("/v1/links/import", form))).toMatchObject({ created: 0, skipped: 2, failed: 0 })
  })

  it("refuses what is not an import: 400 unreadable, 422 without a url column, empty or too long", async () => {
    const expectError = (res: Res, status: number, code: string) =>
      expect({ status: res.status, code: res.body?.error?.code }, JSON.stringify(res.body)).toEqual({ status, code })
    expectError(await upload("url\n\"unterminated"), 400, "bad_request")
    expectError(await upload("url\nhttps://example.com/\u0000"), 400, "bad_request")
    expectError(await upload("url\nhttps://example.com", "application/json"), 400, "bad_request")
    expectError(await upload("title,slug\nx,y"), 422, "unprocessable_entity")
    expectError(await upload(""), 422, "unprocessable_entity")
    expectError(await upload("url\n"), 422, "unprocessable_entity")
    expectError(await upload(`url\n${"https://example.com/x\n".repeat(100_001)}`), 422, "unprocessable_entity")
    const noFile = new FormData()
    noFile.set("other", "x")
    expectError(await api.post("/v1/links/import", noFile), 400, "bad_request")
    expectError(await api.get("/v1/links/import/imp_missing"), 404, "not_found")
  })
})
