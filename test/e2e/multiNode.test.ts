import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  createWorkspace,
  eventually,
  removeDir,
  startControl,
  startEngineProcess,
  startNats,
  tempDir,
  visit
} from "../support/processes.ts"

type Engine = Awaited<ReturnType<typeof startEngineProcess>>

const VISITS_PER_ENGINE = 15

/**
 * The scale-out on one machine, as docs/operations.md#topologies describes it: two controls and three
 * engines on one PostgreSQL and one NATS, sharing the clicks directory. Traffic goes through
 * every engine and API calls through both controls: every click is counted once whichever control
 * answers, every change made through either control reaches every engine, and the rate limits
 * are one allowance across both controls. (That each custom domain is checked by one control at
 * a time, and the shared click files compacted once, is test/faults/twoControls.test.ts.)
 */
describe("two controls and three engines", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let nats: Awaited<ReturnType<typeof startNats>>
  let root: string
  const controls: Array<ControlHandle> = []
  const engines: Array<Engine> = []
  let host: string
  let apis: Array<ReturnType<typeof apiClient>>

  beforeAll(async () => {
    db = await createTestDatabase()
    nats = await startNats()
    root = await tempDir()
    const shared = {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      RICOCHET_SHORT_DOMAIN: "multi.test",
      RICOCHET_LINK_SCHEME: "https",
      RICOCHET_CLICKS_DIR: path.join(root, "clicks"),
      RICOCHET_SPOOL_DIR: path.join(root, "spool")
    }
    // The first control creates the first workspace; the second finds it there.
    controls.push(await startControl({ ...shared, RICOCHET_DATA_DIR: path.join(root, "control-1") }, true))
    controls.push(await startControl({ ...shared, RICOCHET_DATA_DIR: path.join(root, "control-2") }, true))
    for (const id of ["edge-1", "edge-2", "edge-3"]) {
      engines.push(await startEngineProcess({ ...shared, RICOCHET_DATA_DIR: path.join(root, id), RICOCHET_ENGINE_ID: id }))
    }
    const key = controls[0]!.firstKey!
    apis = controls.map((c) => apiClient(c.baseUrl, key))
    host = (await apis[0]!.get("/v1/domains")).body.data[0].host
  }, 300_000)

  afterAll(async () => {
    for (const engine of engines) await engine.stop()
    for (const control of controls) await control.stop()
    await nats?.stop()
    await db?.drop()
    if (root) await removeDir(root)
  })

  const everyEngine = (path: string) => Promise.all(engines.map((e) => visit(e.baseUrl, host, path)))

  it("shows every change made through either control on every engine", async () => {
    const created = await apis[0]!.post("/v1/links", { url: "https://example.com/one", slug: "shared" })
    expect(created.status).toBe(201)
    await eventually(async () => (await everyEngine("/shared")).every((a) => a.location === "https://example.com/one"), 15_000, 100)

    // Changed through the other control.
    expect((await apis[1]!.patch(`/v1/links/${created.body.id}`, { url: "https://example.com/two" })).status).toBe(200)
    await eventually(async () => (await everyEngine("/shared")).every((a) => a.location === "https://example.com/two"), 15_000, 100)

    // A domain's fallback, set through the second control, answers unknown slugs on every engine.
    const domainId = (await apis[1]!.get("/v1/domains")).body.data[0].id
    expect((await apis[1]!.patch(`/v1/domains/${domainId}`, { notFoundUrl: "https://example.com/missing" })).status).toBe(200)
    await eventually(async () => (await everyEngine("/no-such-slug")).every((a) => a.location === "https://example.com/missing"), 15_000, 100)

    expect((await apis[0]!.delete(`/v1/links/${created.body.id}`)).status).toBe(200)
    await eventually(async () => (await everyEngine("/shared")).every((a) => a.location === "https://example.com/missing"), 15_000, 100)
  })

  it("counts every click through every engine once, whichever control answers", async () => {
    const created = await apis[1]!.post("/v1/links", { url: "https://example.com/counted", slug: "counted" })
    expect(created.status).toBe(201)
    // Polled as curl, a bot: never counted, so only the visits below are.
    const asBot = { headers: { "user-agent": "curl/8.5.0" } }
    await eventually(async () =>
      (await Promise.all(engines.map((e) => visit(e.baseUrl, host, "/counted", asBot)))).every((a) => a.location === "https://example.com/counted"), 15_000, 100)
    // A browser's user agent: a person.
    for (const engine of engines) {
      for (let i = 0; i < VISITS_PER_ENGINE; i++) {
        const answer = await visit(engine.baseUrl, host, "/counted")
        expect(answer.status).toBe(302)
      }
    }
    const expected = engines.length * VISITS_PER_ENGINE
    const clicks = (api: ReturnType<typeof apiClient>) => api.get(`/v1/analytics?groupBy=count&interval=24h&linkId=${created.body.id}`)
    // Asked sparingly: 20 analytics questions a minute per workspace, across both controls.
    await eventually(async () => (await clicks(apis[0]!)).body.data?.clicks === expected, 60_000, 3_000)
    const [first, second] = await Promise.all(apis.map(clicks))
    expect(first!.body.data).toEqual({ clicks: expected, people: expected, agents: 0 })
    expect(second!.body.data).toEqual(first!.body.data)
  }, 120_000)

  it("shares the rate limit across both controls", async () => {
    // A workspace of its own: the analytics allowance (20 a minute) is counted in PostgreSQL.
    const other = await createWorkspace(controls[0]!.env, "pro", "Rate limited")
    const clients = controls.map((c) => apiClient(c.baseUrl, other.apiKey))
    const statuses: Array<number> = []
    for (let i = 0; i < 20; i++) statuses.push((await clients[i % 2]!.get("/v1/analytics?groupBy=count")).status)
    expect(statuses.every((s) => s === 200), JSON.stringify(statuses)).toBe(true)
    for (const client of clients) {
      const refused = await client.get("/v1/analytics?groupBy=count")
      expect(refused.status).toBe(429)
      expect(refused.body.error.code).toBe("rate_limit_exceeded")
    }
  })
})
