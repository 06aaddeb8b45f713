import { access } from "node:fs/promises"
import * as path from "node:path"
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
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { openDuckDb, partitionOf } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "../support/clickRecord.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"

/**
 * `ricochet control` with its DATABASE_URL through the fault proxy, while PostgreSQL hangs (bytes
 * held, nothing answered) and while it refuses connections. Every API call must answer 503 with
 * the error body within a bound, /healthz stay 200 and /readyz say 503; once PostgreSQL is back,
 * everything works again by itself, and changes made around the outage reach an engine (which
 * reads PostgreSQL directly, so only the outbox publisher can tell it), and compaction, which
 * takes its lock in PostgreSQL, merges the clicks that arrived during it.
 *
 * RICOCHET_DB_TIMEOUT_SECONDS=2 keeps the file short: calls are answered within 2 s, a hung
 * connection is dropped after 3 s.
 */

const TIMEOUT_SECONDS = 2
const BOUND_MS = 6_000
const HOST = "my-workspace.localhost"
const CLICKS = 25
const TWO_DAYS_AGO = Date.now() - 2 * 86_400_000

interface Answer {
  readonly call: string
  readonly status: number
  readonly ms: number
  readonly body: any
  readonly retryAfter: string | null
}

describe("control while PostgreSQL hangs and refuses", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let proxy: TcpProxy
  let nats: Awaited<ReturnType<typeof startNats>>
  let dirs: Array<string> = []
  let control: ControlHandle
  let engine: Awaited<ReturnType<typeof startEngineProcess>>
  let direct: postgres.Sql
  const statuses: Array<{ call: string; status: number }> = []
  let beforeId = ""
  let subdomainId = ""

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
      RICOCHET_DB_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
      RICOCHET_COMPACT_SECONDS: "1",
      RICOCHET_COMPACT_SETTLE_SECONDS: "0"
    }, true)
    // After control has migrated the database. Long TTL: a change reaches the engine by its
    // event, not by its cache entry expiring.
    engine = await startEngineProcess({ DATABASE_URL: db.url, NATS_URL: nats.url, RICOCHET_DATA_DIR: dirs[1], RICOCHET_CACHE_TTL_SECONDS: "600" })
    direct = postgres(db.url, { max: 1, onnotice: () => {} })
  }, 120_000)

  afterAll(async () => {
    await proxy?.restore().catch(() => {})
    await Promise.all([control?.stop(), engine?.stop()])
    await direct?.end({ timeout: 1 })
    await proxy?.close()
    await nats?.stop()
    await db?.drop()
    await Promise.all(dirs.map(removeDir))
  })

  const api = () => apiClient(control.baseUrl, control.firstKey!)
  const clicksDir = () => path.join(dirs[0], "clicks")

  /** One call, timed, with a ceiling far above the bound so a hang fails the test instead of stalling it. */
  const call = async (name: string, method: string, path: string, body?: unknown, key: string | undefined = control.firstKey) => {
    const start = Date.now()
    const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` }
    if (body !== undefined) headers["content-type"] = "application/json"
    let answer: Answer
    try {
      const res = await fetch(`${control.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(20_000)
      })
      const text = await res.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      answer = { call: name, status: res.status, ms: Date.now() - start, body: parsed, retryAfter: res.headers.get("retry-after") }
    } catch (error) {
      answer = { call: name, status: 0, ms: Date.now() - start, body: String(error), retryAfter: null }
    }
    statuses.push({ call: name, status: answer.status })
    return answer
  }

  /** Every kind of API call: each reads the database first (key, rate limit), then its own work. */
  const everyCall = (round: string) => [
    call("list links", "GET", "/v1/links"),
    call("create link", "POST", "/v1/links", { url: "https://example.com/during", slug: `during-${round}` }),
    call("get link", "GET", `/v1/links/${beforeId}`),
    call("update link", "PATCH", `/v1/links/${beforeId}`, { title: "during" }),
    call("delete link", "DELETE", "/v1/links/lnk_00000000000000000000"),
    call("link info", "GET", `/v1/links/info?domain=${HOST}&slug=before`),
    call("list tags", "GET", "/v1/tags"),
    call("create tag", "POST", "/v1/tags", { name: `tag ${round}` }),
    call("list folders", "GET", "/v1/folders"),
    call("create folder", "POST", "/v1/folders", { name: `folder ${round}` }),
    call("list domains", "GET", "/v1/domains"),
    call("add domain", "POST", "/v1/domains", { host: `${round}.outage.example.com` }),
    call("verify domain", "POST", `/v1/domains/${subdomainId}/verify`),
    call("analytics", "GET", "/v1/analytics?groupBy=count&interval=7d"),
    call("unknown path", "GET", "/v1/nothing-here"),
    call("openapi", "GET", "/v1/openapi.json", undefined, undefined),
    call("no key", "GET", "/v1/links", undefined, undefined),
    call("unknown key", "GET", "/v1/links", undefined, "rico_notavalidkeynotavalidkey0000")
  ]

  const expectAllUnavailable = (answers: ReadonlyArray<Answer>) => {
    for (const answer of answers) {
      const summary = JSON.stringify(answer)
      expect(answer.status, summary).toBe(503)
      expect(answer.ms, summary).toBeLessThanOrEqual(BOUND_MS)
      expect(Object.keys(answer.body), summary).toEqual(["error"])
      expect(answer.body.error.code, summary).toBe("internal_server_error")
      expect(answer.body.error.message, summary).toMatch(/database is unavailable/)
      expect(answer.retryAfter, summary).toBe("5")
    }
  }

  const expectLiveButNotReady = async (database: RegExp) => {
    const health = await call("healthz", "GET", "/healthz")
    expect(health.status).toBe(200)
    expect(health.ms).toBeLessThan(1_000)
    const ready = await call("readyz", "GET", "/readyz")
    expect(ready.status, JSON.stringify(ready)).toBe(503)
    expect(ready.body).toMatchObject({ status: "not_ready", database: expect.stringMatching(database), bus: "ok", error: { code: "internal_server_error" } })
    expect(ready.ms).toBeLessThan(2_500)
  }

  it("is ready while PostgreSQL answers", async () => {
    const ready = await call("readyz", "GET", "/readyz")
    expect(ready).toMatchObject({ status: 200, body: { status: "ready", database: "ok", bus: "ok" } })
    const before = await api().post("/v1/links", { url: "https://example.com/v1", slug: "before" })
    expect(before.status).toBe(201)
    beforeId = before.body.id
    subdomainId = (await api().get("/v1/domains")).body.data[0].id
    await eventually(async () => (await visit(engine.baseUrl, HOST, "/before")).location === "https://example.com/v1", 5_000)
    // The engine now remembers that "fresh" does not exist.
    expect((await visit(engine.baseUrl, HOST, "/fresh")).status).toBe(404)
  })

  it("answers every API call 503 with the error body within the bound while PostgreSQL hangs", async () => {
    // Created just before the outage: its event may still be in the outbox when the database hangs.
    expect((await api().post("/v1/links", { url: "https://example.com/fresh", slug: "fresh" })).status).toBe(201)
    proxy.hang()
    expectAllUnavailable(await Promise.all(everyCall("hang1")))
    await expectLiveButNotReady(/^timeout$/)

    // Written while control cannot see the database (as another control process could have): only
    // control's outbox publisher, once it reaches the database again, can tell the engine.
    const [latest] = await direct<{ payload: unknown }[]>`
      SELECT payload FROM outbox WHERE payload->>'type' = 'link.upserted' AND payload->'link'->>'id' = ${beforeId}
      ORDER BY id DESC LIMIT 1`
    await direct.begin(async (tx) => {
      await tx`UPDATE links SET url = 'https://example.com/v3' WHERE id = ${beforeId}`
      await tx`INSERT INTO outbox (topic, payload)
        VALUES ('ricochet.changes.link.upserted', jsonb_set(${tx.json(latest.payload as never)}::jsonb, '{link,url}', '"https://example.com/v3"'))`
    })

    // Clicks an engine rolled into a finished day while control could not take its compaction lock.
    const [{ workspace_id: workspaceId }] = await direct<{ workspace_id: string }[]>`SELECT workspace_id FROM links WHERE id = ${beforeId}`
    const duck = await openDuckDb(1)
    try {
      const clicks = Array.from({ length: CLICKS }, (_, i) =>
        clickRecord({ timestamp: TWO_DAYS_AGO + i * 1000, workspaceId, linkId: beforeId, domain: HOST, slug: "before", visitorHash: `v${i}` }))
      await writeClicksParquet(duck, clicks, path.join(clicksDir(), partitionOf(TWO_DAYS_AGO).dir, "outage-1.parquet"))
    } finally {
      duck.closeSync()
    }

    // Past the point where the first hung connections are dropped: new ones hang while connecting.
    await new Promise((r) => setTimeout(r, (TIMEOUT_SECONDS + 1.5) * 1000))
    expectAllUnavailable(await Promise.all(everyCall("hang2")))
    expect(control.child.exitCode).toBeNull()
  }, 60_000)

  it("answers every API call 503 within the bound while PostgreSQL refuses connections", async () => {
    await proxy.refuse()
    expectAllUnavailable(await Promise.all(everyCall("refused")))
    // Refused at once, or (the pool between two reconnect attempts) not answered within 1 s.
    await expectLiveButNotReady(/^(unreachable|timeout)$/)
    expect(control.child.exitCode).toBeNull()
  }, 60_000)

  it("recovers by itself once PostgreSQL is back: API, readiness, and the changes made around the outage reach the engine", async () => {
    await proxy.restore()
    const recoveredIn = await eventually(async () => (await call("readyz", "GET", "/readyz")).status === 200, 15_000, 200)
    expect(recoveredIn).toBeLessThan(15_000)

    const created = await call("create link", "POST", "/v1/links", { url: "https://example.com/after", slug: "after" })
    expect(created.status, JSON.stringify(created)).toBe(201)
    const list = await call("list links", "GET", "/v1/links")
    expect(list.status).toBe(200)
    expect(list.body.data.map((l: { slug: string }) => l.slug)).toEqual(expect.arrayContaining(["after", "fresh", "before"]))
    // Compaction took its lock again and merged the finished day; every click counted once.
    const dayManifest = path.join(clicksDir(), `date=${partitionOf(TWO_DAYS_AGO).date}`, "_day.json")
    // The pass also writes the day's rollup (control/analytics/rollup.ts): slower on a busy machine.
    await eventually(() => access(dayManifest).then(() => true), 45_000, 200)
    const analytics = await call("analytics", "GET", "/v1/analytics?groupBy=count&interval=7d")
    expect(analytics.status, JSON.stringify(analytics)).toBe(200)
    expect(analytics.body.data).toEqual({ clicks: CLICKS, people: CLICKS, agents: 0 })
    expect((await call("list tags", "GET", "/v1/tags")).status).toBe(200)

    // The outbox publisher resumed: the link created just before the outage replaces the engine's
    // "not found", and the change written during it replaces the cached destination.
    await eventually(async () => (await visit(engine.baseUrl, HOST, "/fresh")).location === "https://example.com/fresh", 15_000, 100)
    await eventually(async () => (await visit(engine.baseUrl, HOST, "/before")).location === "https://example.com/v3", 15_000, 100)
    expect((await visit(engine.baseUrl, HOST, "/after")).location).toBe("https://example.com/after")

    expect(statuses.filter((s) => s.status >= 500 && s.status !== 503), JSON.stringify(statuses)).toEqual([])
    expect(statuses.filter((s) => s.status === 0), JSON.stringify(statuses)).toEqual([])
    expect(control.child.exitCode).toBeNull()
  }, 60_000)

  it("says on /readyz when the bus is down, degraded but still ready (200), and plain ready once it is back", async () => {
    await nats.stop()
    await eventually(async () => {
      const ready = await call("readyz", "GET", "/readyz")
      return ready.status === 200 && ready.body.status === "degraded" && ready.body.bus === "disconnected" && ready.body.database === "ok"
    }, 10_000, 100)
    expect((await call("healthz", "GET", "/healthz")).status).toBe(200)
    nats = await startNats(nats.port)
    await eventually(async () => {
      const ready = await call("readyz", "GET", "/readyz")
      return ready.status === 200 && ready.body.status === "ready"
    }, 15_000, 100)
  }, 60_000)
})
