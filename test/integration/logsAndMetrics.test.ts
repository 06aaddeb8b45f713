import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { request } from "node:http"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiClient, type ControlHandle, eventually, removeDir, ROOT, roomInThisMinute, startControl, tempDir, visit } from "../support/processes.ts"
import { namingProblems, seriesOf, valueOf } from "../support/prometheusRules.ts"

const ADMIN_EMAIL = "logs-admin@example.com"
const secret = (label: string) => `${label}-${randomBytes(9).toString("base64url")}`
/** Answers later than this are logged as slow (RICOCHET_SLOW_REQUEST_MS). */
const SLOW_MS = 300

interface LogLine {
  readonly level: string
  readonly message: string
  readonly [field: string]: unknown
}
const logLines = (output: string): Array<LogLine> =>
  output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as LogLine)

/**
 * `npm start` with its output piped (as under a process manager): log lines are JSON with a
 * request id where there is one (slow answers are logged with it; no access log unless asked), the
 * first start's block stays plain text, no secret that went through control or the engine is ever
 * written, and /metrics, on the operator ports only, counts requests by route, the database calls
 * and the analytics questions; control's and the engine's serve no series twice, the process's own
 * once, and every labelled counter from the start.
 */
describe("logs and metrics of a running Ricochet", () => {
  let dir: string
  let ctl: ControlHandle
  let enginePort: string
  let adminPassword: string
  let domain: string
  const secrets: Array<string> = []

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${ctl.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", origin: ctl.baseUrl, ...headers }, body: JSON.stringify(body) })

  beforeAll(async () => {
    dir = await tempDir()
    ctl = await startControl({
      RICOCHET_DATA_DIR: dir,
      DATABASE_URL: undefined,
      NATS_URL: undefined,
      RICOCHET_SHORT_DOMAIN: "logs.test",
      RICOCHET_ADMIN_EMAIL: ADMIN_EMAIL,
      RICOCHET_LOG_FORMAT: undefined,
      RICOCHET_ACCESS_LOG: undefined,
      RICOCHET_SLOW_REQUEST_MS: String(SLOW_MS)
    })
    enginePort = ctl.env.RICOCHET_ENGINE_PORT!
    const out = ctl.output()
    adminPassword = /one-time password \(shown once\): (\S+)/.exec(out)![1]!
    domain = /Workspace:\s+"[^"]*" on (\S+)/.exec(out)![1]!
  }, 180_000)

  afterAll(async () => {
    await ctl?.stop()
    if (dir) await removeDir(dir)
  })

  it("echoes a usable X-Request-Id and replaces one that is not", async () => {
    const kept = await fetch(`${ctl.baseUrl}/v1/links`, { headers: { authorization: `Bearer ${ctl.firstKey}`, "x-request-id": "trace-42.a:b" } })
    expect(kept.headers.get("x-request-id")).toBe("trace-42.a:b")
    const replaced = await fetch(`${ctl.baseUrl}/v1/links/lnk_missing`, { headers: { authorization: `Bearer ${ctl.firstKey}`, "x-request-id": "not usable" } })
    expect(replaced.status).toBe(404)
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
    // Every answer has one, errors included.
    const unauthenticated = await fetch(`${ctl.baseUrl}/v1/links`)
    expect(unauthenticated.status).toBe(401)
    expect(unauthenticated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("drives every secret through control and the engine", async () => {
    // Wrong and right passwords, the session cookie, a new key, a link password and its unlock cookie.
    const wrong = secret("WrongPassword")
    secrets.push(wrong)
    expect((await post("/v1/sessions", { email: ADMIN_EMAIL, password: wrong })).status).toBe(401)
    const signedIn = await post("/v1/sessions", { email: ADMIN_EMAIL, password: adminPassword })
    expect(signedIn.status).toBe(201)
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!
    secrets.push(cookie.split("=")[1]!)
    // The printed password is one-time: the session may do nothing before it is replaced.
    const ownPassword = secret("OwnPassword")
    secrets.push(ownPassword)
    expect((await post("/v1/me/password", { currentPassword: adminPassword, newPassword: ownPassword }, { cookie })).status).toBe(200)
    const created = await post("/v1/keys", { name: "logs", role: "member", scope: "all" }, { cookie })
    expect(created.status).toBe(201)
    const newKey = (await created.json()).key as string
    secrets.push(newKey)
    expect((await apiClient(ctl.baseUrl, newKey).get("/v1/links")).status).toBe(200)
    expect((await apiClient(ctl.baseUrl, `${newKey}x`).get("/v1/links")).status).toBe(401)

    const linkPassword = secret("LinkPassword")
    secrets.push(linkPassword)
    const link = await post("/v1/links", { url: "https://example.com/protected", slug: "protected", password: linkPassword }, { cookie })
    expect(link.status).toBe(201)
    const engine = `http://127.0.0.1:${enginePort}`
    // The password form until unlocked.
    await eventually(async () => (await visit(engine, domain, "/protected")).body.includes("password"), 10_000, 100)
    const form = { "content-type": "application/x-www-form-urlencoded" }
    const wrongLink = secret("WrongLinkPassword")
    secrets.push(wrongLink)
    expect((await visit(engine, domain, "/protected", { method: "POST", headers: form, body: `password=${wrongLink}` })).status).toBe(403)
    const unlocked = await visit(engine, domain, "/protected", { method: "POST", headers: form, body: `password=${linkPassword}` })
    expect(unlocked.status).toBe(303)
    const unlockCookie = String(unlocked.headers["set-cookie"]).split(";")[0]!
    secrets.push(unlockCookie.split("=")[1]!)
    expect((await visit(engine, domain, "/protected", { headers: { cookie: unlockCookie } })).location).toBe("https://example.com/protected")

    // Five wrong passwords a minute, then 429: counted as a rate-limit refusal.
    await roomInThisMinute(10)
    for (let i = 0; i < 5; i++) await post("/v1/sessions", { email: ADMIN_EMAIL, password: wrong })
    expect((await post("/v1/sessions", { email: ADMIN_EMAIL, password: wrong })).status).toBe(429)
    expect((await apiClient(ctl.baseUrl, ctl.firstKey).get("/v1/analytics?groupBy=countries")).status).toBe(200)
  })

  const controlOperator = () => `http://127.0.0.1:${ctl.env.RICOCHET_CONTROL_ADMIN_PORT}`
  const engineOperator = () => `http://127.0.0.1:${ctl.env.RICOCHET_ENGINE_ADMIN_PORT}`
  const scrape = async (base: string) => {
    const res = await fetch(`${base}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4")
    return res.text()
  }

  it("counts requests by declared route and status, database calls and analytics questions on /metrics", async () => {
    const text = await scrape(controlOperator())
    const series = (name: string, labels: Record<string, string>) =>
      text.split("\n").some((line) => line.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
    expect(series("ricochet_control_http_requests_total", { method: "GET", route: "/v1/links", status: "200" })).toBe(true)
    expect(series("ricochet_control_http_requests_total", { method: "GET", route: "/v1/links/:id", status: "404" })).toBe(true)
    expect(series("ricochet_control_http_requests_total", { method: "POST", route: "/v1/sessions", status: "429" })).toBe(true)
    expect(series("ricochet_control_http_request_duration_seconds_bucket", { method: "POST", route: "/v1/links" })).toBe(true)
    expect(series("ricochet_control_rate_limit_refusals_total", { route: "/v1/sessions" })).toBe(true)
    expect(series("ricochet_control_db_query_duration_seconds_count", { outcome: "ok" })).toBe(true)
    expect(series("ricochet_control_analytics_query_duration_seconds_count", { group_by: "countries" })).toBe(true)
    // No raw id ever becomes a label.
    expect(text).not.toContain("lnk_missing")
  })

  it("serves /metrics on the operator ports only; /healthz and /readyz on both of control's ports", async () => {
    const onApi = await fetch(`${ctl.baseUrl}/metrics`)
    expect(onApi.status).toBe(404)
    expect((await onApi.json()).error.message).toContain("RICOCHET_CONTROL_ADMIN_PORT")
    for (const base of [ctl.baseUrl, controlOperator(), engineOperator()]) {
      expect((await fetch(`${base}/healthz`)).status, base).toBe(200)
      const ready = await fetch(`${base}/readyz`)
      expect(ready.status, base).toBe(200)
      expect((await ready.json()).status, base).toBe("ready")
    }
    expect((await fetch(`${controlOperator()}/v1/links`)).status).toBe(404)
  })

  it("serves each series once under npm start: control's and the engine's apart, the process's own and build info on control's", async () => {
    const [control, engine] = await Promise.all([scrape(controlOperator()), scrape(engineOperator())])
    expect(namingProblems(control)).toEqual([])
    expect(namingProblems(engine)).toEqual([])
    const shared = [...seriesOf(control)].filter((key) => seriesOf(engine).has(key))
    expect(shared).toEqual([])
    expect(control).not.toContain("ricochet_engine_")
    expect(engine).not.toContain("ricochet_control_")
    for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_p99_seconds"]) {
      expect(valueOf(control, name), name).toBeGreaterThan(0)
      expect(engine).not.toContain(name)
    }
    expect(control).toContain("nodejs_gc_duration_seconds_count{kind=\"minor\"}")
    const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version
    expect(valueOf(control, "ricochet_build_info", { version, node: process.versions.node })).toBe(1)
    expect(engine).not.toContain("ricochet_build_info")
    // Labelled counters are there before their first event, at 0.
    expect(valueOf(control, "ricochet_control_webhook_deliveries_total", { result: "gave_up" })).toBe(0)
    expect(valueOf(control, "ricochet_control_domain_checks_total", { result: "wrong" })).toBe(0)
    expect(valueOf(control, "ricochet_control_rate_limit_refusals_total", { route: "/v1/webhooks/:id" })).toBe(0)
    expect(valueOf(engine, "ricochet_engine_answers_total", { outcome: "failure", status: "503" })).toBe(0)
    expect(valueOf(engine, "ricochet_engine_answers_total", { outcome: "not_found", status: "410" })).toBe(0)
    // The bus and the outbox, as control sees them now: the in-process bus, nothing waiting.
    expect(valueOf(control, "ricochet_control_bus_connected")).toBe(1)
    expect(valueOf(control, "ricochet_control_outbox_unpublished_events")).toBe(0)
  })

  it("moves the engine's answer latency histogram with each redirect", async () => {
    const api = apiClient(ctl.baseUrl, ctl.firstKey)
    expect((await api.post("/v1/links", { url: "https://example.com/timed", slug: "timed" })).status).toBe(201)
    const engine = `http://127.0.0.1:${enginePort}`
    await eventually(async () => (await visit(engine, domain, "/timed")).status === 302, 10_000, 50)
    const count = async () => valueOf(await scrape(engineOperator()), "ricochet_engine_answer_duration_seconds_count") ?? -1
    const before = await count()
    const redirectsBefore = valueOf(await scrape(engineOperator()), "ricochet_engine_answers_total", { outcome: "redirect", status: "302" })!
    for (let i = 0; i < 5; i++) expect((await visit(engine, domain, "/timed")).location).toBe("https://example.com/timed")
    const after = await scrape(engineOperator())
    expect(valueOf(after, "ricochet_engine_answer_duration_seconds_count")).toBe(before + 5)
    expect(valueOf(after, "ricochet_engine_answers_total", { outcome: "redirect", status: "302" })).toBe(redirectsBefore + 5)
    expect(valueOf(after, "ricochet_engine_answer_duration_seconds_bucket", { le: "+Inf" })).toBe(before + 5)
    expect(valueOf(after, "ricochet_engine_answer_duration_seconds_sum")).toBeGreaterThan(0)
  })

  it("logs a slow answer with its request id, method, route, path, status and duration", async () => {
    // The body comes well after the head: the answer cannot come sooner than that.
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ url: "https://example.com/slow", slug: "slow-one" })
      const req = request({
        host: "127.0.0.1",
        port: ctl.env.RICOCHET_API_PORT,
        method: "POST",
        path: "/v1/links",
        headers: { authorization: `Bearer ${ctl.firstKey}`, "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-request-id": "slow-request-1" }
      }, (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      })
      req.on("error", reject)
      req.flushHeaders()
      setTimeout(() => req.end(body), SLOW_MS * 2)
    })
    expect(status).toBe(201)
    await eventually(async () => logLines(ctl.output()).some((line) => line.requestId === "slow-request-1"), 5_000, 50)
    const lines = logLines(ctl.output()).filter((line) => line.requestId === "slow-request-1")
    expect(lines).toEqual([expect.objectContaining({
      level: "warn",
      message: expect.stringMatching(/^slow request: answered after \d+(\.\d)? ms$/),
      method: "POST",
      route: "/v1/links",
      path: "/v1/links",
      status: 201,
      durationMs: expect.any(Number)
    })])
    expect(lines[0]!.durationMs as number).toBeGreaterThanOrEqual(SLOW_MS * 2 - 50)
  })

  it("writes log lines as JSON, the first start's block as plain text, and no secret anywhere", async () => {
    await ctl.stop()
    const output = ctl.output()
    for (const value of secrets) expect(output, `a secret was written: ${value}`).not.toContain(value)
    const lines = output.split("\n").filter((line) => line.trim() !== "")
    const logs = lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))
    for (const entry of logs) expect(entry).toMatchObject({ time: expect.any(String), level: expect.stringMatching(/^(debug|info|warn|error)$/), message: expect.any(String) })
    expect(logs.map((entry) => entry.message)).toEqual(expect.arrayContaining(["Migrating…", "Starting the engine…"]))
    // No access log unless RICOCHET_ACCESS_LOG asks for one.
    expect(logs.filter((entry) => entry.message === "request")).toEqual([])
    expect(lines.some((line) => line.startsWith("API key (shown once, keep it): rico_") || line.includes("API key (shown once, keep it): rico_"))).toBe(true)
    // Every line is either a JSON log line or part of what a person reads at first start.
    const plain = lines.filter((line) => !line.startsWith("{"))
    expect(plain.every((line) => !/^\d{4}-\d{2}-\d{2}T/.test(line)), plain.join("\n")).toBe(true)
  }, 60_000)
})
