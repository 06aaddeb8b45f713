import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  eventually,
  removeDir,
  runTs,
  startControl,
  startEngineProcess,
  startNats,
  tempDir,
  visit
} from "../support/processes.ts"

/**
 * Scale-out: one control and two engines on real PostgreSQL and a NATS server of the test's own
 * (so it can be stopped and restarted without disturbing anything else).
 */
describe("engines kept fresh over NATS", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let nats: Awaited<ReturnType<typeof startNats>>
  let dir: string
  let control: ControlHandle
  let engines: Array<Awaited<ReturnType<typeof startEngineProcess>>> = []
  let api: ReturnType<typeof apiClient>
  let host: string

  beforeAll(async () => {
    db = await createTestDatabase()
    nats = await startNats()
    dir = await tempDir()
    const env = { DATABASE_URL: db.url, NATS_URL: nats.url, RICOCHET_DATA_DIR: dir, RICOCHET_CACHE_TTL_SECONDS: "600" }
    control = await startControl(env, true)
    // Pushed as each comes up, so afterAll stops whichever started even if the other did not.
    await Promise.all([0, 1].map(async () => engines.push(await startEngineProcess(env))))
    api = apiClient(control.baseUrl, control.firstKey!)
    host = "my-workspace.localhost"
  }, 120_000)

  afterAll(async () => {
    await Promise.all(engines.map((e) => e.stop()))
    await control?.stop()
    await nats?.stop()
    await db?.drop()
    await removeDir(dir)
  })

  const locations = () => Promise.all(engines.map((e) => visit(e.baseUrl, host, "/e2e").then((r) => r.location)))

  it("serves a new link from both engines, and a PATCH of its url within 1 s", async () => {
    const created = await api.post("/v1/links", { url: "https://example.com/one", slug: "e2e" })
    expect(created.status).toBe(201)
    await eventually(async () => (await locations()).every((l) => l === "https://example.com/one"), 10_000)

    const patched = await api.patch(`/v1/links/${created.body.id}`, { url: "https://example.com/two" })
    expect(patched.status).toBe(200)
    const elapsed = await eventually(async () => (await locations()).every((l) => l === "https://example.com/two"), 1_000, 10)
    expect(elapsed).toBeLessThan(1_000)
  })

  it("stops serving a deleted link on both engines", async () => {
    const info = await api.get(`/v1/links/info?domain=${host}&slug=e2e`)
    expect((await api.delete(`/v1/links/${info.body.id}`)).status).toBe(200)
    await eventually(async () => {
      const answers = await Promise.all(engines.map((e) => visit(e.baseUrl, host, "/e2e")))
      return answers.every((a) => a.status === 404)
    }, 1_000, 10)
  })

  it("redirects at once a link created after a visitor tried its slug", async () => {
    for (const engine of engines) expect((await visit(engine.baseUrl, host, "/late")).status).toBe(404)
    expect((await api.post("/v1/links", { url: "https://example.com/late", slug: "late" })).status).toBe(201)
    await eventually(async () => {
      const answers = await Promise.all(engines.map((e) => visit(e.baseUrl, host, "/late")))
      return answers.every((a) => a.location === "https://example.com/late")
    }, 1_000, 10)
  })

  it("keeps serving cached links while NATS is down and converges when it returns", async () => {
    const created = await api.post("/v1/links", { url: "https://example.com/before", slug: "outage" })
    await eventually(async () => {
      const answers = await Promise.all(engines.map((e) => visit(e.baseUrl, host, "/outage")))
      return answers.every((a) => a.location === "https://example.com/before")
    }, 2_000)

    await nats.stop()
    const patched = await api.patch(`/v1/links/${created.body.id}`, { url: "https://example.com/after" })
    expect(patched.status).toBe(200)
    // The bus is down: both engines keep answering from their caches.
    for (const engine of engines) {
      const answer = await visit(engine.baseUrl, host, "/outage")
      expect(answer.status).toBe(302)
      expect(answer.location).toBe("https://example.com/before")
    }

    nats = await startNats(nats.port)
    await eventually(async () => {
      const answers = await Promise.all(engines.map((e) => visit(e.baseUrl, host, "/outage")))
      return answers.every((a) => a.location === "https://example.com/after")
    }, 15_000, 100)
  })

  it("answers HEAD like GET, without a body", async () => {
    const answer = await visit(engines[0].baseUrl, host, "/late", { method: "HEAD" })
    expect(answer.status).toBe(302)
    expect(answer.location).toBe("https://example.com/late")
    expect(answer.body).toBe("")
  })

  it("behind a trusted proxy, takes the visitor's address from the entry the proxy appended to X-Forwarded-For", async () => {
    const env = { DATABASE_URL: db.url, NATS_URL: nats.url, RICOCHET_DATA_DIR: dir, RICOCHET_TRUST_PROXY: "true" }
    const proxied = await startEngineProcess(env)
    try {
      const created = await api.post("/v1/links", {
        url: "https://example.com/elsewhere",
        slug: "by-address",
        geoRules: [{ country: "US", url: "https://example.com/us" }, { country: "DE", url: "https://example.com/de" }]
      })
      expect(created.status).toBe(201)
      const from = async (forwarded?: string) =>
        (await visit(proxied.baseUrl, host, "/by-address", forwarded === undefined ? {} : { headers: { "x-forwarded-for": forwarded } })).location
      await eventually(async () => (await from("85.214.132.117")) === "https://example.com/de", 5_000)
      expect(await from("8.8.8.8")).toBe("https://example.com/us")
      // What the client wrote before the proxy's entry does not count.
      expect(await from("85.214.132.117, 8.8.8.8")).toBe("https://example.com/us")
      // No header: the socket's address (loopback, no country).
      expect(await from()).toBe("https://example.com/elsewhere")
      // The status endpoint still checks the socket, not the header.
      const res = await fetch(`${proxied.baseUrl}/.well-known/ricochet/status`, { headers: { "x-forwarded-for": "203.0.113.9" } })
      expect(res.status).toBe(200)
    } finally {
      await proxied.stop()
    }
  })

  it("refuses to run alone without DATABASE_URL", async () => {
    const proc = runTs("cli/ricochet.ts", ["engine"], { DATABASE_URL: undefined, RICOCHET_DATA_DIR: dir })
    expect(await proc.exited).not.toBe(0)
    expect(proc.output()).toMatch(/DATABASE_URL/)
  })

  it("exits 0 on SIGTERM", async () => {
    const engine = engines.pop()!
    expect(await engine.stop("SIGTERM")).toBe(0)
  })
})
