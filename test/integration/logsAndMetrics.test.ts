import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiClient, type ControlHandle, eventually, removeDir, roomInThisMinute, startControl, tempDir, visit } from "../support/processes.ts"

const ADMIN_EMAIL = "logs-admin@example.com"
const secret = (label: string) => `${label}-${randomBytes(9).toString("base64url")}`

/**
 * `npm start` with its output piped (as under a process manager): log lines are JSON with a
 * request id where there is one, the first start's block stays plain text, no secret that went
 * through control or the engine is ever written, and /metrics counts requests by route, the
 * database calls and the analytics questions.
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
    ctl = await startControl({ RICOCHET_DATA_DIR: dir, DATABASE_URL: undefined, NATS_URL: undefined, RICOCHET_SHORT_DOMAIN: "logs.test", RICOCHET_ADMIN_EMAIL: ADMIN_EMAIL, RICOCHET_LOG_FORMAT: undefined })
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

  it("counts requests by declared route and status, database calls and analytics questions on /metrics", async () => {
    const text = await (await fetch(`${ctl.baseUrl}/metrics`)).text()
    const series = (name: string, labels: Record<string, string>) =>
      text.split("\n").some((line) => line.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
    expect(series("ricochet_control_http_requests_total", { method: "GET", route: "/v1/links", status: "200" })).toBe(true)
    expect(series("ricochet_control_http_requests_total", { method: "GET", route: "/v1/links/:id", status: "404" })).toBe(true)
    expect(series("ricochet_control_http_requests_total", { method: "POST", route: "/v1/sessions", status: "429" })).toBe(true)
    expect(series("ricochet_control_http_request_duration_seconds_bucket", { method: "POST", route: "/v1/links" })).toBe(true)
    expect(series("ricochet_control_rate_limit_refusals_total", { route: "/v1/sessions" })).toBe(true)
    expect(series("ricochet_control_db_query_duration_seconds_count", { outcome: "ok" })).toBe(true)
    expect(series("ricochet_control_analytics_query_duration_seconds_count", { groupBy: "countries" })).toBe(true)
    // No raw id ever becomes a label.
    expect(text).not.toContain("lnk_missing")
  })

  it("writes log lines as JSON, the first start's block as plain text, and no secret anywhere", async () => {
    await ctl.stop()
    const output = ctl.output()
    for (const value of secrets) expect(output, `a secret was written: ${value}`).not.toContain(value)
    const lines = output.split("\n").filter((line) => line.trim() !== "")
    const logs = lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))
    for (const entry of logs) expect(entry).toMatchObject({ time: expect.any(String), level: expect.stringMatching(/^(debug|info|warn|error)$/), message: expect.any(String) })
    expect(logs.map((entry) => entry.message)).toEqual(expect.arrayContaining(["Migrating…", "Starting the engine…"]))
    expect(lines.some((line) => line.startsWith("API key (shown once, keep it): rico_") || line.includes("API key (shown once, keep it): rico_"))).toBe(true)
    // Every line is either a JSON log line or part of what a person reads at first start.
    const plain = lines.filter((line) => !line.startsWith("{"))
    expect(plain.every((line) => !/^\d{4}-\d{2}-\d{2}T/.test(line)), plain.join("\n")).toBe(true)
  }, 60_000)
})
