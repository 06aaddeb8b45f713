import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiClient,
  type ControlHandle,
  createWorkspace,
  eventually,
  removeDir,
  roomInThisMinute,
  startControl,
  tempDir,
  visit
} from "../support/processes.ts"

/**
 * The dashboard's own endpoints (not in the spec): GET /v1/analytics/dashboard, one view of
 * analytics in one request counted once. One embedded `npm start`; clicks sent through its engine.
 */
let ctl: ControlHandle
let dir: string
let engine: string

beforeAll(async () => {
  dir = await tempDir()
  ctl = await startControl({
    RICOCHET_DATA_DIR: dir,
    DATABASE_URL: undefined,
    NATS_URL: undefined,
    RICOCHET_GEO_HEADER: "cf-ipcountry",
    RICOCHET_ROLL_SECONDS: "1",
    RICOCHET_COMPACT_SECONDS: "1",
    RICOCHET_COMPACT_SETTLE_SECONDS: "0",
    RICOCHET_LINK_SCHEME: "http"
  })
  engine = `http://127.0.0.1:${ctl.env.RICOCHET_ENGINE_PORT}`
}, 180_000)

afterAll(async () => {
  await ctl?.stop()
  if (dir) await removeDir(dir)
})

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"

describe("GET /v1/analytics/dashboard", () => {
  it("answers totals, timeseries and breakdowns as GET /v1/analytics does, counted once against the analytics allowance", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Dashboard analytics")
    const api = apiClient(ctl.baseUrl, ws.apiKey)
    for (const slug of ["one", "two", "quiet"]) expect((await api.post("/v1/links", { url: `https://example.com/${slug}`, slug })).status).toBe(201)
    for (const [slug, country, ua] of [["one", "US", undefined], ["one", "DE", IPHONE], ["two", "US", undefined]] as const) {
      const res = await visit(engine, ws.domain, `/${slug}`, { headers: { "cf-ipcountry": country, ...(ua ? { "user-agent": ua } : {}) } })
      expect(res.status).toBe(302)
    }
    // The clicks reach the files within seconds; asked through the dashboard call, which is what is tested.
    await roomInThisMinute(50)
    let asked = 0
    await eventually(async () => {
      asked++
      return (await api.get("/v1/analytics/dashboard?interval=24h")).body.totals?.clicks === 3
    }, 30_000, 1_000)

    await roomInThisMinute(15)
    const view = await api.get("/v1/analytics/dashboard?interval=24h&include=timeseries,previous,countries,devices,top_links&limit=5")
    expect(view.status).toBe(200)
    // One request, one count: the analytics allowance of 20 went down by exactly one more.
    expect(Number(view.headers.get("ratelimit-limit"))).toBe(20)
    expect(Number(view.headers.get("ratelimit-remaining"))).toBe(20 - asked - 1)
    expect(view.body.totals).toEqual({ clicks: 3, people: 3, agents: 0 })
    const series = (await api.get("/v1/analytics?groupBy=timeseries&interval=24h")).body
    expect(view.body.timeseries).toEqual(series.data)
    expect(view.body.breakdowns.countries).toEqual((await api.get("/v1/analytics?groupBy=countries&interval=24h&limit=5")).body.data)
    expect(view.body.breakdowns.devices).toEqual([{ device: "desktop", clicks: 2, people: 2, agents: 0 }, { device: "mobile", clicks: 1, people: 1, agents: 0 }])
    expect(view.body.breakdowns.top_links.map((r: { slug: string; clicks: number }) => [r.slug, r.clicks])).toEqual([["one", 2], ["two", 1]])
    // The previous 24 hours, just as long, before the link existed.
    expect(view.body.previous.totals).toEqual({ clicks: 0, people: 0, agents: 0 })
    expect(Date.parse(view.body.previous.end)).toBe(Date.parse(view.body.start))
    expect(view.body.previous.timeseries).toHaveLength(view.body.timeseries.length)
    // Only the parts asked for.
    const bare = await api.get("/v1/analytics/dashboard?interval=24h&country=DE")
    expect(bare.body).toMatchObject({ totals: { clicks: 1 }, timeseries: null, previous: null, breakdowns: {} })
    expect(Number(bare.headers.get("ratelimit-remaining"))).toBe(20 - asked - 2)
  })

  it("counts the links asked for by id, each one, with none of their clicks missing", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Dashboard link counts")
    const api = apiClient(ctl.baseUrl, ws.apiKey)
    const a = (await api.post("/v1/links", { url: "https://example.com/a", slug: "a" })).body
    const b = (await api.post("/v1/links", { url: "https://example.com/b", slug: "b" })).body
    const never = (await api.post("/v1/links", { url: "https://example.com/never", slug: "never" })).body
    for (const slug of ["a", "a", "b"]) expect((await visit(engine, ws.domain, `/${slug}`)).status).toBe(302)
    const ids = [a.id, b.id, never.id].join(",")
    await eventually(async () => (await api.get(`/v1/analytics/dashboard?interval=all&linkIds=${ids}`)).body.totals?.clicks === 3, 30_000, 1_500)
    const counted = await api.get(`/v1/analytics/dashboard?interval=all&linkIds=${b.id},${never.id}&include=top_links&limit=1`)
    expect(counted.status).toBe(200)
    // limit does not cut the links asked for by id.
    expect(counted.body.breakdowns.top_links.map((r: { linkId: string; clicks: number }) => [r.linkId, r.clicks])).toEqual([[b.id, 1]])
    expect(counted.body.totals.clicks).toBe(1)
    // A link of another workspace, or too many ids, is a 422 naming the field.
    const other = await createWorkspace(ctl.env, "pro", "Someone else")
    const theirs = (await apiClient(ctl.baseUrl, other.apiKey).post("/v1/links", { url: "https://example.com/x", slug: "x" })).body
    const foreign = await api.get(`/v1/analytics/dashboard?linkIds=${theirs.id}`)
    expect(foreign.status).toBe(422)
    expect(foreign.body.error.issues[0].path).toEqual(["linkIds"])
    const many = await api.get(`/v1/analytics/dashboard?linkIds=${Array.from({ length: 101 }, (_, i) => `lnk_${i}`).join(",")}`)
    expect(many.status).toBe(422)
    const part = await api.get("/v1/analytics/dashboard?include=planets")
    expect(part.status).toBe(422)
    expect(part.body.error.issues[0].path).toEqual(["include"])
  })
})
