import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  eventually,
  removeDir,
  startControl,
  startEngineProcess,
  startNats,
  tempDir,
  visit
} from "../support/processes.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"

/**
 * NATS stopped (and, for one engine, frozen) while links and the domain's fallback are created,
 * changed and deleted through the API: every engine serves every change within the cache TTL
 * while the bus is still down, including slugs a visitor tried before (a negative entry, or the
 * slug filter's "no"), and changes propagate at bus speed again once NATS is back.
 *
 * Control and two engines on PostgreSQL; engine B reaches NATS through a TCP proxy the test can
 * freeze. The production-like variant (TTL 60 s, a 95 s outage) runs with RICOCHET_FAULTS_LONG=1.
 */
const HOST = "my-workspace.localhost"
const LONG = process.env.RICOCHET_FAULTS_LONG === "1"
/** Polling, request latency and a busy two-core machine, on top of the TTL. */
const SLACK_MS = 3_000

type Engine = Awaited<ReturnType<typeof startEngineProcess>>

interface EngineStatus {
  readonly bus: "connected" | "disconnected"
  readonly filtered: number
}

const cluster = (ttlSeconds: number) => {
  const ctx = {} as {
    db: Awaited<ReturnType<typeof createTestDatabase>>
    nats: Awaited<ReturnType<typeof startNats>>
    proxy: TcpProxy
    dir: string
    control: ControlHandle
    engines: Array<Engine>
    api: ReturnType<typeof apiClient>
    outbox: postgres.Sql
  }
  ctx.engines = []
  beforeAll(async () => {
    ctx.db = await createTestDatabase()
    ctx.nats = await startNats()
    ctx.proxy = await startTcpProxy({ host: "127.0.0.1", port: ctx.nats.port })
    ctx.dir = await tempDir()
    const env = { DATABASE_URL: ctx.db.url, NATS_URL: ctx.nats.url, RICOCHET_DATA_DIR: ctx.dir, RICOCHET_CACHE_TTL_SECONDS: String(ttlSeconds) }
    ctx.control = await startControl(env, true)
    // Assigned as each comes up, so afterAll stops whichever started even if the other did not.
    await Promise.all([env, { ...env, NATS_URL: ctx.proxy.url("nats://127.0.0.1:{port}") }].map(async (engineEnv, index) => {
      ctx.engines[index] = await startEngineProcess(engineEnv)
    }))
    ctx.api = apiClient(ctx.control.baseUrl, ctx.control.firstKey!)
    ctx.outbox = postgres(ctx.db.url, { max: 1, onnotice: () => {} })
  }, 180_000)
  afterAll(async () => {
    await Promise.all(ctx.engines.filter((e) => e !== undefined).map((e) => e.stop()))
    await ctx.control?.stop()
    await ctx.outbox?.end({ timeout: 1 })
    await ctx.proxy?.close()
    await ctx.nats?.stop()
    await ctx.db?.drop()
    if (ctx.dir) await removeDir(ctx.dir)
  })
  return ctx
}

const status = async (engine: Engine): Promise<EngineStatus> =>
  (await fetch(`${engine.baseUrl}/.well-known/ricochet/status`)).json() as Promise<EngineStatus>

const locationAt = async (engine: Engine, slug: string): Promise<string> => {
  const answer = await visit(engine.baseUrl, HOST, `/${slug}`)
  return answer.status === 404 ? "404" : `${answer.status} ${answer.location}`
}

/** What each slug must answer, checked on the given engines. */
type Expected = Readonly<Record<string, string>>
const mismatches = async (engines: ReadonlyArray<Engine>, expected: Expected): Promise<Array<string>> => {
  const wrong: Array<string> = []
  for (const engine of engines) {
    for (const [slug, want] of Object.entries(expected)) {
      const got = await locationAt(engine, slug)
      if (got !== want) wrong.push(`engine on :${engine.port} /${slug}: ${got}, expected ${want}`)
    }
  }
  return wrong
}

/** Waits until every engine answers as expected; returns how long it took. */
const served = async (engines: ReadonlyArray<Engine>, expected: Expected, withinMs: number): Promise<number> => {
  const start = Date.now()
  let last: Array<string> = []
  while (Date.now() - start < withinMs) {
    last = await mismatches(engines, expected)
    if (last.length === 0) return Date.now() - start
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`not served within ${withinMs} ms:\n${last.join("\n")}`)
}

/**
 * Until the engine's slug filters answer: a dozen probes on new connections, all answered by a
 * filter (with HTTP workers, each has its own filter, and the probes reach every worker).
 */
const PROBES = 12
const filterReady = (engine: Engine) =>
  eventually(async () => {
    const before = (await status(engine)).filtered
    await Promise.all(Array.from({ length: PROBES }, () => visit(engine.baseUrl, HOST, `/probe-${Math.random().toString(36).slice(2)}`)))
    return (await status(engine)).filtered - before === PROBES
  }, 15_000, 100)

const url = (name: string) => `https://example.com/${name}`

/**
 * Measures bus propagation: the link is loaded on every engine (cached a full TTL from now), then
 * changed; only an event can show the change before that TTL runs out.
 */
const propagationMs = async (ctx: ReturnType<typeof cluster>, engines: ReadonlyArray<Engine>, id: string, slug: string, next: string) => {
  for (const engine of engines) await locationAt(engine, slug)
  expect((await ctx.api.patch(`/v1/links/${id}`, { url: next })).status).toBe(200)
  return served(engines, { [slug]: `302 ${next}` }, 10_000)
}

const outageScenario = (ttlSeconds: number, outageMs: number) => {
  const ctx = cluster(ttlSeconds)
  const ttlMs = ttlSeconds * 1000

  it(`changes made while NATS is down reach both engines within the TTL (${ttlSeconds} s), and at bus speed once it is back`, async () => {
    const { api, engines } = ctx
    const kept = await api.post("/v1/links", { url: url("kept-1"), slug: "kept" })
    const gone = await api.post("/v1/links", { url: url("gone"), slug: "gone" })
    expect([kept.status, gone.status]).toEqual([201, 201])
    // "asked": a visitor tried it before any filter existed, so the engine holds a negative entry.
    for (const engine of engines) expect(await locationAt(engine, "asked")).toBe("404")
    for (const engine of engines) {
      await filterReady(engine)
      // "fresh" is answered by the filter's "no" (never loaded, so no negative entry either).
      const before = (await status(engine)).filtered
      expect(await locationAt(engine, "fresh")).toBe("404")
      expect((await status(engine)).filtered).toBe(before + 1)
    }
    await served(engines, { kept: `302 ${url("kept-1")}`, gone: `302 ${url("gone")}`, asked: "404", never: "404" }, 5_000)

    const stoppedAt = Date.now()
    await ctx.nats.stop()
    await eventually(async () => (await Promise.all(engines.map(status))).every((s) => s.bus === "disconnected"), 5_000)

    const domains = await api.get("/v1/domains")
    const primary = (domains.body.data as Array<{ id: string; host: string }>).find((d) => d.host === HOST)!
    const changes = [
      await api.post("/v1/links", { url: url("asked"), slug: "asked" }),
      await api.post("/v1/links", { url: url("fresh"), slug: "fresh" }),
      await api.patch(`/v1/links/${kept.body.id}`, { url: url("kept-2") }),
      await api.delete(`/v1/links/${gone.body.id}`),
      await api.patch(`/v1/domains/${primary.id}`, { notFoundUrl: url("fallback") })
    ]
    expect(changes.map((c) => c.status)).toEqual([201, 201, 200, 200, 200])
    const changedAt = Date.now()
    const during: Expected = {
      asked: `302 ${url("asked")}`,
      fresh: `302 ${url("fresh")}`,
      kept: `302 ${url("kept-2")}`,
      gone: `302 ${url("fallback")}`,
      never: `302 ${url("fallback")}`
    }
    await served(engines, during, ttlMs + SLACK_MS)
    expect(Date.now() - changedAt).toBeLessThanOrEqual(ttlMs + SLACK_MS)

    // The bus stays down for the whole outage; the answers must not slip back meanwhile (a filter
    // rebuilt, or trusted again, with stale knowledge would do that).
    while (Date.now() - stoppedAt < outageMs) {
      expect(await mismatches(engines, during)).toEqual([])
      await new Promise((r) => setTimeout(r, Math.min(5_000, ttlMs / 2)))
    }
    expect((await Promise.all(engines.map(status))).every((s) => s.bus === "disconnected")).toBe(true)

    ctx.nats = await startNats(ctx.nats.port)
    await eventually(async () => (await Promise.all(engines.map(status))).every((s) => s.bus === "connected"), 15_000, 100)
    // Control has published its backlog once the outbox is empty: its own connection is back too.
    await eventually(async () => (await ctx.outbox`SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL`)[0].n === 0, 15_000, 100)
    expect(await mismatches(engines, during)).toEqual([])

    const elapsed = await propagationMs(ctx, engines, kept.body.id, "kept", url("kept-3"))
    expect(elapsed).toBeLessThan(Math.min(1_000, ttlMs / 3))
    // A slug tried just before it is created: the negative entry is replaced by the event.
    for (const engine of engines) expect(await locationAt(engine, "late")).toBe(`302 ${url("fallback")}`)
    expect((await api.post("/v1/links", { url: url("late"), slug: "late" })).status).toBe(201)
    expect(await served(engines, { late: `302 ${url("late")}` }, 10_000)).toBeLessThan(Math.min(1_000, ttlMs / 3))
  }, outageMs + ttlMs * 4 + 120_000)

  it("a frozen NATS server (connection open, nothing arriving) bounds staleness the same way", async () => {
    const { api, engines } = ctx
    const frozen = engines[1]
    const link = await api.post("/v1/links", { url: url("icy-1"), slug: "icy" })
    expect(link.status).toBe(201)
    await served([frozen], { icy: `302 ${url("icy-1")}` }, 10_000)
    await filterReady(frozen)
    expect(await locationAt(frozen, "thaw")).toBe(`302 ${url("fallback")}`)

    ctx.proxy.hang()
    const frozenAt = Date.now()
    expect((await api.patch(`/v1/links/${link.body.id}`, { url: url("icy-2") })).status).toBe(200)
    expect((await api.post("/v1/links", { url: url("thaw"), slug: "thaw" })).status).toBe(201)
    // Engine A is connected and hears of it at once; B learns nothing until its TTL says so.
    await served([engines[0]], { icy: `302 ${url("icy-2")}`, thaw: `302 ${url("thaw")}` }, 2_000)
    await served([frozen], { icy: `302 ${url("icy-2")}`, thaw: `302 ${url("thaw")}` }, ttlMs + SLACK_MS)
    expect(Date.now() - frozenAt).toBeLessThanOrEqual(ttlMs + SLACK_MS)
    expect((await status(frozen)).bus).toBe("disconnected")

    await ctx.proxy.restore()
    await eventually(async () => (await status(frozen)).bus === "connected", 15_000, 100)
    expect(await propagationMs(ctx, engines, link.body.id, "icy", url("icy-3"))).toBeLessThan(Math.min(1_000, ttlMs / 3))
  }, ttlMs * 4 + 60_000)
}

describe("engines across a NATS outage (TTL 3 s)", () => {
  outageScenario(3, 8_000)
})

describe.runIf(LONG)("engines across a NATS outage, production numbers (TTL 60 s, 95 s down)", () => {
  outageScenario(60, 95_000)
})
