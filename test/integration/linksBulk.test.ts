import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BACKENDS, type Backend, startBackend } from "../support/backends.ts"
import { apiClient, createWorkspace } from "../support/processes.ts"

type Res = { status: number; body: any }

const expectError = (res: Res, status: number, code: string) => {
  expect({ status: res.status, code: res.body?.error?.code }, JSON.stringify(res.body)).toEqual({ status, code })
  expect(Object.keys(res.body)).toEqual(["error"])
}

/** POST, PATCH and DELETE /v1/links/bulk: each item on its own, its outcome at its index. */
describe.each(BACKENDS)("links in bulk (%s)", (kind) => {
  let backend: Backend
  let api: ReturnType<typeof apiClient>

  beforeAll(async () => {
    backend = await startBackend(kind, {}, { withEngine: false })
    api = apiClient(backend.control.baseUrl, backend.control.firstKey!)
  }, 180_000)

  afterAll(async () => {
    await backend?.stop()
  })

  it("creates each valid item and reports each bad one with the single call's error at its index", async () => {
    const taken = await api.post("/v1/links", { url: "https://example.com/taken", slug: "bulk-taken" })
    expect(taken.status).toBe(201)
    const res = await api.post("/v1/links/bulk", {
      links: [
        { url: "https://example.com/a", slug: "bulk-a", title: "A" },
        { url: "not a url" },
        { url: "https://example.com/b", slug: "bulk-taken" },
        "nonsense",
        { url: "https://example.com/c", tagIds: ["tag_missing"] },
        { url: "https://example.com/d", unknownField: 1 },
        { url: "https://example.com/e" }
      ]
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const data = res.body.data
    expect(data.map((item: any) => [item.index, item.status])).toEqual([[0, 201], [1, 422], [2, 409], [3, 422], [4, 422], [5, 422], [6, 201]])
    expect(data[0].link).toMatchObject({ slug: "bulk-a", title: "A", url: "https://example.com/a" })
    expect(data[1].error).toMatchObject({ code: "unprocessable_entity", issues: [expect.objectContaining({ path: ["url"] })] })
    expect(data[2].error.code).toBe("conflict")
    expect(data[4].error.issues[0]).toMatchObject({ path: ["tagIds", 0], code: "unknown_reference" })
    expect(data[5].error.issues[0]).toMatchObject({ path: ["unknownField"], code: "unknown_field" })
    expect(data[6].link.slug).toMatch(/^[A-Za-z0-9]+$/)
    const found = await api.get("/v1/links/info?domain=my-workspace.localhost&slug=bulk-a")
    expect(found.status).toBe(200)
  })

  it("refuses an empty or oversized request as a whole", async () => {
    expectError(await api.post("/v1/links/bulk", { links: [] }), 422, "unprocessable_entity")
    expectError(await api.post("/v1/links/bulk", { links: Array.from({ length: 101 }, (_, i) => ({ url: `https://example.com/${i}` })) }), 422, "unprocessable_entity")
    expectError(await api.post("/v1/links/bulk", {}), 422, "unprocessable_entity")
    expectError(await api.post("/v1/links/bulk", "{"), 400, "bad_request")
    expectError(await api.call("PATCH", "/v1/links/bulk", { ids: [], title: "x" }), 422, "unprocessable_entity")
    expectError(await api.call("PATCH", "/v1/links/bulk", { ids: ["lnk_1"], slug: "same" }), 422, "unprocessable_entity")
    expectError(await api.call("DELETE", "/v1/links/bulk", { ids: "lnk_1" }), 422, "unprocessable_entity")
  })

  it("updates and deletes each id on its own; unknown ids are their item's 404", async () => {
    const created = await api.post("/v1/links/bulk", {
      links: [{ url: "https://example.com/u1" }, { url: "https://example.com/u2" }]
    })
    const ids = created.body.data.map((item: any) => item.link.id)
    const updated = await api.patch("/v1/links/bulk", { ids: [ids[0], "lnk_nope", ids[1]], title: "Updated", redirectType: 301 })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(updated.body.data.map((item: any) => [item.index, item.status])).toEqual([[0, 200], [1, 404], [2, 200]])
    expect(updated.body.data[0].link).toMatchObject({ id: ids[0], title: "Updated", redirectType: 301 })
    expect(updated.body.data[1].error.code).toBe("not_found")
    expect((await api.get(`/v1/links/${ids[1]}`)).body.title).toBe("Updated")

    const deleted = await api.call("DELETE", "/v1/links/bulk", { ids: [ids[0], ids[0], ids[1]] })
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
    expect(deleted.body.data).toEqual([
      { index: 0, status: 200, id: ids[0] },
      { index: 1, status: 404, id: ids[0], error: { code: "not_found", message: expect.any(String) } },
      { index: 2, status: 200, id: ids[1] }
    ])
    expect((await api.get(`/v1/links/${ids[1]}`)).status).toBe(404)
  })

  it.runIf(kind === "postgres")("writes one outbox event per change, none for a failed item", async () => {
    const sql = postgres(backend.control.env.DATABASE_URL!, { max: 1, onnotice: () => {} })
    try {
      const events = async () => (await sql<{ id: string }[]>`SELECT max(id)::text AS id FROM outbox`)[0].id ?? "0"
      const since = async (from: string) =>
        (await sql<{ topic: string; payload: any }[]>`SELECT topic, payload FROM outbox WHERE id > ${from}::bigint ORDER BY id`)
      let mark = await events()
      const created = await api.post("/v1/links/bulk", { links: [{ url: "https://example.com/o1" }, { url: "bad" }, { url: "https://example.com/o2" }] })
      const ids = created.body.data.filter((item: any) => item.link).map((item: any) => item.link.id)
      expect((await since(mark)).map((e) => e.payload.link?.id)).toEqual(ids)
      mark = await events()
      await api.patch("/v1/links/bulk", { ids: [...ids, "lnk_nope"], title: "T" })
      expect((await since(mark)).map((e) => e.payload.link?.id)).toEqual(ids)
      mark = await events()
      await api.call("DELETE", "/v1/links/bulk", { ids: ["lnk_nope", ...ids] })
      expect((await since(mark)).map((e) => e.payload.id)).toEqual(ids)
    } finally {
      await sql.end()
    }
  })

  it("is refused as a whole to a workspace whose plan lacks the API, as single calls are", async () => {
    const basic = await createWorkspace(backend.control.env, "basic", "Bulk basic")
    const basicApi = apiClient(backend.control.baseUrl, basic.apiKey)
    expectError(await basicApi.post("/v1/links/bulk", { links: [{ url: "https://example.com/ok" }] }), 403, "plan_required")
    expectError(await basicApi.call("DELETE", "/v1/links/bulk", { ids: ["lnk_1"] }), 403, "plan_required")
  })
})
