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
import { namingProblems, valueOf } from "../support/prometheusRules.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"

const HOST = "my-workspace.localhost"

interface LogLine {
  readonly level: string
  readonly message: string
  readonly [field: string]: unknown
}
const logLines = (output: string): Array<LogLine> =>
  output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as LogLine)

/**
 * `ricochet control` and `ricochet engine` as separate processes on PostgreSQL (control's through
 * a proxy the test can close) and a private NATS: each operator port serves its own process's
 * series; the outbox backlog and the bus state show a NATS outage; the access log
 * (RICOCHET_ACCESS_LOG=1) has one line per request, secrets scrubbed; a 5xx is logged with its
 * request id.
 */
describe("operator ports and request logs of separate control and engine processes", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let proxy: TcpProxy
  let nats: Awaited<ReturnType<typeof startNats>>
  let dirs: Array<string> = []
  let control: ControlHandle
  let engine: Awaited<ReturnType<typeof startEngineProcess>>

  beforeAll(async () => {
    db = await createTestDatabase()
    const target = new URL(db.url)
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const proxied = new URL(db.url)
    proxied.hostname = "127.0.0.1"
    proxied.port = String(proxy.port)
    nats = await startNats()
    dirs = [await tempDir(), await tempDir()]
    control = await startControl({
      DATABASE_URL: proxied.toString(),
      NATS_URL: nats.url,
      RICOCHET_DATA_DIR: dirs[0],
      RICOCHET_DB_TIMEOUT_SECONDS: "1",
      RICOCHET_LOG_FORMAT: "json",
      RICOCHET_ACCESS_LOG: "1"
    }, true)
    engine = await startEngineProcess({ DATABASE_URL: db.url, NATS_URL: nats.url, RICOCHET_DATA_DIR: dirs[1], RICOCHET_LOG_FORMAT: "json", RICOCHET_ENGINE_WORKERS: "2",
      // No roll while the test runs: acknowledged clicks stay in the spool.
      RICOCHET_ROLL_SECONDS: "3600"
    })
  }, 180_000)

  afterAll(async () => {
    await proxy?.restore().catch(() => {})
    await Promise.all([control?.stop(), engine?.stop()])
    await proxy?.close()
    await nats?.stop()
    await db?.drop()
    await Promise.all(dirs.map(removeDir))
  })

  const api = () => apiClient(control.baseUrl, control.firstKey!)
  const scrape = async (port: string | undefined) => {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) })
    expect(res.status).toBe(200)
    return res.text()
  }
  const controlMetrics = () => scrape(control.env.RICOCHET_CONTROL_ADMIN_PORT)
  const engineMetrics = () => scrape(engine.env.RICOCHET_ENGINE_ADMIN_PORT)

  it("serves each process's own series on its operator port, by the naming rules", async () => {
    const [ctl, eng] = await Promise.all([controlMetrics(), engineMetrics()])
    expect(namingProblems(ctl)).toEqual([])
    expect(namingProblems(eng)).toEqual([])
    // Two processes: each carries its process's figures and build info.
    for (const text of [ctl, eng]) {
      expect(valueOf(text, "process_cpu_seconds_total")).toBeGreaterThan(0)
      expect(valueOf(text, "process_resident_memory_bytes")).toBeGreaterThan(0)
      expect(valueOf(text, "ricochet_build_info", { node: process.versions.node })).toBe(1)
    }
    expect(ctl).not.toContain("ricochet_engine_")
    expect(eng).not.toContain("ricochet_control_")
    expect(valueOf(eng, "ricochet_engine_answers_total", { outcome: "redirect", status: "302" })).toBe(0)
  })

  it("sums the answer latency of the engine's HTTP workers", async () => {
    expect((await api().post("/v1/links", { url: "https://example.com/apart", slug: "apart" })).status).toBe(201)
    const engineUrl = `http://127.0.0.1:${engine.port}`
    await eventually(async () => (await visit(engineUrl, HOST, "/apart")).status === 302, 15_000, 50)
    const before = valueOf(await engineMetrics(), "ricochet_engine_answer_duration_seconds_count")!
    // New connections each: the kernel spreads them over the workers.
    for (let i = 0; i < 8; i++) expect((await visit(engineUrl, HOST, "/apart")).status).toBe(302)
    expect(valueOf(await engineMetrics(), "ricochet_engine_answer_duration_seconds_count")).toBe(before + 8)
  })

  it("counts the clicks acknowledged and not yet rolled into Parquet (what spool_pending_clicks never said)", async () => {
    await eventually(async () => (valueOf(await engineMetrics(), "ricochet_engine_clicks_acknowledged_total") ?? 0) >= 8, 10_000, 100)
    const text = await engineMetrics()
    const acknowledged = valueOf(text, "ricochet_engine_clicks_acknowledged_total")!
    expect(valueOf(text, "ricochet_engine_clicks_rolled_total")).toBe(0)
    expect(valueOf(text, "ricochet_engine_spool_unrolled_clicks")).toBe(acknowledged)
    expect(valueOf(text, "ricochet_engine_clicks_waiting_for_disk")).toBe(0)
  })

  it("writes one access line per request, with its id, route, path, status, duration, client and size, and no secret", async () => {
    const key = control.firstKey!
    expect((await api().get("/v1/links?limit=5", { "x-request-id": "access-1" })).status).toBe(200)
    expect((await api().get("/v1/links/lnk_nope?password=hunter2", { "x-request-id": "access-2" })).status).toBe(404)
    expect((await apiClient(control.baseUrl, `${key}x`).get("/v1/links", { "x-request-id": "access-3" })).status).toBe(401)
    await eventually(async () => logLines(control.output()).some((line) => line.requestId === "access-3" && line.message === "request"), 5_000, 50)
    const access = logLines(control.output()).filter((line) => line.message === "request" && String(line.requestId).startsWith("access-"))
    expect(access).toEqual([
      { time: expect.any(String), level: "info", message: "request", requestId: "access-1", method: "GET", route: "/v1/links", path: "/v1/links?limit=5", status: 200, durationMs: expect.any(Number), client: "127.0.0.1", bytes: expect.any(Number) },
      { time: expect.any(String), level: "info", message: "request", requestId: "access-2", method: "GET", route: "/v1/links/:id", path: "/v1/links/lnk_nope?password=[redacted]", status: 404, durationMs: expect.any(Number), client: "127.0.0.1", bytes: expect.any(Number) },
      { time: expect.any(String), level: "info", message: "request", requestId: "access-3", method: "GET", route: "/v1/links", path: "/v1/links", status: 401, durationMs: expect.any(Number), client: "127.0.0.1", bytes: expect.any(Number) }
    ])
    expect(control.output()).not.toContain("hunter2")
    // The key is printed once in the first start's block, never in a log line.
    expect(control.output().split("\n").filter((line) => line.startsWith("{")).join("\n")).not.toContain(key)
    // The engine's redirects write none: the access log is the API's.
    expect(logLines(engine.output()).filter((line) => line.message === "request")).toEqual([])
  })

  it("shows a NATS outage: the bus gauges at 0 and the outbox backlog growing, then drained once NATS is back", async () => {
    await nats.stop()
    await eventually(async () => valueOf(await controlMetrics(), "ricochet_control_bus_connected") === 0, 20_000, 200)
    await eventually(async () => valueOf(await engineMetrics(), "ricochet_engine_bus_connected") === 0, 20_000, 200)
    // The API works without the bus: the changes wait in the outbox.
    for (let i = 0; i < 3; i++) expect((await api().post("/v1/links", { url: `https://example.com/while-down-${i}` })).status).toBe(201)
    await eventually(async () => (valueOf(await controlMetrics(), "ricochet_control_outbox_unpublished_events") ?? 0) >= 3, 10_000, 200)
    nats = await startNats(nats.port)
    await eventually(async () => {
      const text = await controlMetrics()
      return valueOf(text, "ricochet_control_bus_connected") === 1 && valueOf(text, "ricochet_control_outbox_unpublished_events") === 0
    }, 30_000, 200)
  }, 90_000)

  it("logs a 503 in the access log with its request id (not a warning per request); /metrics still answers, without an outbox figure it cannot read", async () => {
    await proxy.refuse()
    try {
      const failed = await api().get("/v1/links", { "x-request-id": "failed-1" })
      expect(failed.status).toBe(503)
      expect(failed.headers.get("x-request-id")).toBe("failed-1")
      await eventually(async () => logLines(control.output()).some((line) => line.requestId === "failed-1" && line.message === "request"), 5_000, 50)
      const line = logLines(control.output()).find((line) => line.requestId === "failed-1" && line.message === "request")
      expect(line).toMatchObject({ level: "info", requestId: "failed-1", method: "GET", route: "/v1/links", path: "/v1/links", status: 503 })
      expect(logLines(control.output()).filter((line) => line.requestId === "failed-1" && line.level !== "info")).toEqual([])
      const started = Date.now()
      const text = await controlMetrics()
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(valueOf(text, "ricochet_control_outbox_unpublished_events")).toBeUndefined()
      expect(text).toContain("# TYPE ricochet_control_outbox_unpublished_events gauge")
      expect((await fetch(`http://127.0.0.1:${control.env.RICOCHET_CONTROL_ADMIN_PORT}/readyz`)).status).toBe(503)
    } finally {
      await proxy.restore()
    }
    await eventually(async () => valueOf(await controlMetrics(), "ricochet_control_outbox_unpublished_events") === 0, 15_000, 200)
  }, 60_000)
})
