import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { coolDownMs, FAILURES_TO_OPEN } from "../../control/webhooks/breaker.ts"
import { ENDPOINT_CAP, WORKSPACE_CAP } from "../../control/webhooks/fairClaim.ts"
import { startBlackHoles } from "../support/blackHoles.ts"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  createWorkspace,
  eventually,
  removeDir,
  startControl,
  tempDir
} from "../support/processes.ts"
import { startReceiver } from "../support/webhookReceiver.ts"

/**
 * Two control processes on one PostgreSQL, both delivering webhooks, under a load of bad
 * receivers: workspace "silent" has 20 endpoints that accept the connection and never answer,
 * with hundreds of deliveries waiting and more coming all along; workspace "lone" has one such
 * endpoint with many links' events waiting; workspace "failing" has an endpoint that answers 500
 * at once. Meanwhile two healthy workspaces change links through both
 * processes, and every one of their events must reach their receiver within FAIR_DELIVERY_MS,
 * once, each link's in order. The silent workspace holds at most its caps of sending slots, over
 * both processes together, and the failing endpoint is held back by its breaker over both.
 * RICOCHET_FAULTS_LONG=1 runs the healthy traffic three times as long.
 */
const LONG = process.env.RICOCHET_FAULTS_LONG === "1"
const SILENT_ENDPOINTS = 20
const SILENT_LINKS = 20
const HEALTHY_LINKS = LONG ? 45 : 15
const FAIR_DELIVERY_MS = 5_000
const RETRY_BASE_SECONDS = 0.2

describe("webhook fairness with two control processes under bad receivers", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dirs: Array<string> = []
  let controls: Array<ControlHandle> = []
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let failing: Awaited<ReturnType<typeof startReceiver>>
  let holes: Awaited<ReturnType<typeof startBlackHoles>>
  let lone: Awaited<ReturnType<typeof startBlackHoles>>

  beforeAll(async () => {
    receiver = await startReceiver()
    failing = await startReceiver()
    failing.respondWith(500)
    holes = await startBlackHoles(SILENT_ENDPOINTS)
    lone = await startBlackHoles(1)
    db = await createTestDatabase()
    dirs = [await tempDir(), await tempDir(), await tempDir()]
    const common = {
      DATABASE_URL: db.url,
      RICOCHET_CLICKS_DIR: path.join(dirs[2], "clicks"),
      RICOCHET_WEBHOOKS_ALLOW_LOOPBACK: "true",
      RICOCHET_WEBHOOK_RETRY_BASE_SECONDS: String(RETRY_BASE_SECONDS)
    }
    await Promise.all([0, 1].map(async (i) => {
      controls[i] = await startControl({ ...common, RICOCHET_DATA_DIR: dirs[i] }, true)
    }))
  }, 120_000)

  afterAll(async () => {
    await Promise.all(controls.map((c) => c?.stop()))
    await holes?.close()
    await lone?.close()
    await receiver?.close()
    await failing?.close()
    await db?.drop()
    await Promise.all(dirs.map(removeDir))
  })

  const workspace = async (name: string) => {
    const created = await createWorkspace(controls[0].env, "pro", name)
    return controls.map((c) => apiClient(c.baseUrl, created.apiKey))
  }

  it("delivers the healthy workspaces' events within 5 s, once and in order, while the others' receivers hang or fail", async () => {
    const silent = await workspace("Silent")
    for (const url of holes.urls) expect((await silent[0].post("/v1/webhooks", { url, events: ["link.created", "link.updated"] })).status).toBe(201)
    const loneHook = await workspace("Lone")
    expect((await loneHook[1].post("/v1/webhooks", { url: lone.urls[0], events: ["link.created"] })).status).toBe(201)
    const failingHook = await workspace("Failing")
    expect((await failingHook[1].post("/v1/webhooks", { url: failing.url("/failing"), events: ["link.created"] })).status).toBe(201)
    const healthy = [await workspace("Healthy one"), await workspace("Healthy two")]
    for (const [i, clients] of healthy.entries()) {
      expect((await clients[0].post("/v1/webhooks", { url: receiver.url(`/healthy${i}`), events: ["link.created", "link.updated"] })).status).toBe(201)
    }

    // The silent workspace's backlog: 20 endpoints x 20 links, more added while the healthy ones run.
    const silentLinks: Array<string> = []
    for (let i = 0; i < SILENT_LINKS; i++) {
      const link = await silent[i % 2].post("/v1/links", { url: `https://example.com/silent/${i}` })
      expect(link.status).toBe(201)
      silentLinks.push(link.body.id)
    }
    for (let i = 0; i < 10; i++) expect((await loneHook[i % 2].post("/v1/links", { url: `https://example.com/lone/${i}` })).status).toBe(201)
    const failingStarted = Date.now()
    for (let i = 0; i < 10; i++) expect((await failingHook[i % 2].post("/v1/links", { url: `https://example.com/failing/${i}` })).status).toBe(201)
    await eventually(async () => holes.open() >= WORKSPACE_CAP, 20_000, 50)

    // The healthy workspaces' traffic, through both processes, timed from before each request.
    const sentAt = new Map<string, number>()
    const change = async (clients: ReturnType<typeof apiClient>[], i: number, linkId: string | undefined, title: string) => {
      const key = `${linkId ?? "new"}:${title}`
      const started = Date.now()
      const res = linkId === undefined
        ? await clients[i % 2].post("/v1/links", { url: `https://example.com/healthy/${title}`, title })
        : await clients[(i + 1) % 2].patch(`/v1/links/${linkId}`, { title })
      expect(res.status).toBeLessThan(300)
      sentAt.set(linkId === undefined ? `${res.body.id}:${title}` : key, started)
      return res.body.id as string
    }
    const healthyLinks: Array<Array<string>> = [[], []]
    for (let i = 0; i < HEALTHY_LINKS; i++) {
      for (const [w, clients] of healthy.entries()) {
        const id = await change(clients, i, undefined, `w${w}-${i}-a`)
        healthyLinks[w].push(id)
        await change(clients, i, id, `w${w}-${i}-b`)
      }
      // The silent workspace keeps adding to its backlog.
      expect((await silent[i % 2].patch(`/v1/links/${silentLinks[i % SILENT_LINKS]}`, { title: `s${i}` })).status).toBe(200)
      await new Promise((r) => setTimeout(r, 300))
    }

    const expected = HEALTHY_LINKS * 2 * healthy.length
    await eventually(async () => receiver.received.length >= expected, 30_000, 50)
    await new Promise((r) => setTimeout(r, 1_000))
    const ids = receiver.received.map((r) => r.headers["webhook-id"])
    expect(new Set(ids).size).toBe(ids.length)
    expect(receiver.received).toHaveLength(expected)

    const latencies = receiver.received.map((r) => {
      const body = JSON.parse(r.body)
      return r.at - sentAt.get(`${body.data.id}:${body.data.title}`)!
    }).sort((a, b) => a - b)
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]
    console.log(
      `healthy deliveries: ${latencies.length}, p50 ${p(0.5)} ms, p95 ${p(0.95)} ms, max ${latencies[latencies.length - 1]} ms; ` +
        `silent connections at most ${holes.maxOpenTotal()} at once (${holes.maxOpenPerEndpoint()} per endpoint), ` +
        `the lone silent endpoint's at most ${lone.maxOpenTotal()}; ` +
        `failing endpoint tried ${failing.received.length} times in ${Math.round((Date.now() - failingStarted) / 1000)} s`
    )
    expect(latencies[latencies.length - 1]).toBeLessThan(FAIR_DELIVERY_MS)
    for (const [w, links] of healthyLinks.entries()) {
      for (const [i, id] of links.entries()) {
        const titles = receiver.received.filter((r) => r.path === `/healthy${w}`).map((r) => JSON.parse(r.body)).filter((b) => b.data.id === id)
          .map((b) => `${b.type} ${b.data.title}`)
        expect(titles, id).toEqual([`link.created w${w}-${i}-a`, `link.updated w${w}-${i}-b`])
      }
    }

    // The caps held over both processes together.
    expect(holes.maxOpenPerEndpoint()).toBeLessThanOrEqual(ENDPOINT_CAP)
    expect(holes.maxOpenTotal()).toBeLessThanOrEqual(WORKSPACE_CAP)
    expect(lone.maxOpenTotal()).toBeLessThanOrEqual(ENDPOINT_CAP)
    // The failing endpoint's breaker, shared by both processes: the attempts that opened it, those
    // under way then, and one probe per cool-down (1.2 s, doubling up to 24 s), not every delivery's
    // retries (10 deliveries retried after 0.2, 0.4, 0.8 ... s: hundreds of tries).
    const windowMs = Date.now() - failingStarted
    let probes = 0
    for (let elapsed = coolDownMs(1, RETRY_BASE_SECONDS * 1000); elapsed <= windowMs; elapsed += coolDownMs(probes + 2, RETRY_BASE_SECONDS * 1000)) probes++
    expect(failing.received.length).toBeLessThanOrEqual(FAILURES_TO_OPEN + ENDPOINT_CAP - 1 + probes + 1)
  }, 240_000)
})
