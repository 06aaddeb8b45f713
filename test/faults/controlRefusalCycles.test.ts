import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ControlHandle, createTestDatabase, removeDir, startControl, tempDir } from "../support/processes.ts"
import { startCpuLoad } from "../support/cpuLoad.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"

/**
 * `ricochet control` on PostgreSQL through a TCP proxy that refuses connections and lets them
 * through again, cycle after cycle, while clients keep calling the API and probing /healthz and
 * /readyz, beside one busy process per core. Control must never exit or stop listening because
 * the database went away: during each outage /healthz answers 200, /readyz 503 naming the
 * database, and the API 503 with Retry-After and the error body (never a refused connection,
 * never a 500); within a few seconds of each restore everything answers 200 again.
 */
const TIMEOUT_SECONDS = 2
const CYCLES = Number(process.env.RICOCHET_REFUSAL_CYCLES ?? 10)
const OUTAGE_MS = 3_000
const BETWEEN_MS = 6_000
/** From a restore to every kind of call answering 200 again (a reconnect waits at most 0.5 s). */
const RECOVER_MS = 3_000
/** API clients, each making one round of ROUND calls every ROUND_MS: within the plan's 300 requests a minute. */
const CLIENTS = 2
const ROUND_MS = 2_000
/** /readyz and /healthz (not rate limited) are probed this often. */
const PROBE_MS = 250

interface Answer {
  readonly call: string
  readonly at: number
  readonly status: number
  readonly ms: number
  readonly body: any
  readonly retryAfter: string | null
  readonly error?: string
}

describe("control through repeated PostgreSQL refusals, under CPU load", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let proxy: TcpProxy
  let dir: string
  let control: ControlHandle
  let load: ReturnType<typeof startCpuLoad> | undefined

  beforeAll(async () => {
    db = await createTestDatabase()
    const target = new URL(db.url)
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const proxied = new URL(db.url)
    proxied.hostname = "127.0.0.1"
    proxied.port = String(proxy.port)
    dir = await tempDir()
    control = await startControl({
      DATABASE_URL: proxied.toString(),
      RICOCHET_DATA_DIR: dir,
      RICOCHET_DB_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
      NATS_URL: undefined
    }, true)
    load = startCpuLoad()
  }, 180_000)

  afterAll(async () => {
    await load?.stop()
    await proxy?.restore().catch(() => {})
    await control?.stop()
    await proxy?.close()
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

  /** One call, with a ceiling far above any bound so that a hang shows as a failure, not a stall. */
  const call = async (name: string, method: string, path: string, body?: unknown, key: string | undefined = control.firstKey): Promise<Answer> => {
    const at = Date.now()
    const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` }
    if (body !== undefined) headers["content-type"] = "application/json"
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
      return { call: name, at, status: res.status, ms: Date.now() - at, body: parsed, retryAfter: res.headers.get("retry-after") }
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause
      return { call: name, at, status: 0, ms: Date.now() - at, body: null, retryAfter: null, error: `${String(error)} ${cause?.code ?? ""}` }
    }
  }

  let created = 0
  /** A client's round: what a dashboard and an integration call, each reading the database (a create in a transaction). */
  const round = () => [
    () => call("list links", "GET", "/v1/links?limit=5"),
    () => call("create link", "POST", "/v1/links", { url: "https://example.com/cycle", slug: `cycle-${created++}` }),
    () => call("list tags", "GET", "/v1/tags"),
    () => call("list domains", "GET", "/v1/domains")
  ]

  it("keeps listening and answering through every cycle, and recovers after each", async () => {
    const answers: Array<Answer> = []
    const outages: Array<{ from: number; to: number }> = []
    let running = true
    const clients = Array.from({ length: CLIENTS }, async () => {
      while (running) {
        const started = Date.now()
        for (const next of round()) answers.push(await next())
        await sleep(ROUND_MS - (Date.now() - started))
      }
    })
    clients.push((async () => {
      while (running) {
        answers.push(...(await Promise.all([call("readyz", "GET", "/readyz", undefined, undefined), call("healthz", "GET", "/healthz", undefined, undefined)])))
        await sleep(PROBE_MS)
      }
    })())

    try {
      await sleep(BETWEEN_MS)
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const from = Date.now()
        await proxy.refuse()
        await sleep(OUTAGE_MS)
        await proxy.restore()
        outages.push({ from, to: Date.now() })
        await sleep(BETWEEN_MS)
        if (control.child.exitCode !== null || control.child.signalCode !== null) break
      }
    } finally {
      running = false
      await Promise.all(clients)
    }

    const log = () => control.output().slice(-4000)
    expect(control.child.exitCode, log()).toBeNull()
    expect(control.child.signalCode, log()).toBeNull()
    // Never a refused or dropped connection, never a 500.
    const broken = answers.filter((a) => a.status === 0 || (a.status >= 500 && a.status !== 503))
    expect(broken.slice(0, 10), `${broken.length} of ${answers.length}\n${log()}`).toEqual([])

    const within = (a: Answer, { from, to }: { from: number; to: number }) => a.at >= from + 100 && a.at + a.ms <= to
    const during = (a: Answer) => outages.some((outage) => within(a, outage))
    // Each outage was seen by the API and by the probes.
    for (const [i, outage] of outages.entries()) {
      const calls = new Set(answers.filter((a) => within(a, outage)).map((a) => (a.call === "readyz" || a.call === "healthz" ? a.call : "api")))
      expect([...calls].sort(), `outage ${i + 1}`).toEqual(["api", "healthz", "readyz"])
    }
    for (const answer of answers.filter(during)) {
      const summary = JSON.stringify(answer)
      if (answer.call === "healthz") {
        expect(answer.status, summary).toBe(200)
      } else if (answer.call === "readyz") {
        expect(answer.status, summary).toBe(503)
        expect(answer.body.database, summary).toMatch(/^(unreachable|timeout)$/)
        expect(answer.body.error.message, summary).toMatch(/database/)
      } else {
        expect(answer.status, summary).toBe(503)
        expect(answer.retryAfter, summary).toBe("5")
        expect(answer.body.error.code, summary).toBe("internal_server_error")
        expect(answer.body.error.message, summary).toMatch(/database is unavailable/)
      }
    }
    // After each restore: how long until every call answered 2xx again, and nothing but 2xx from
    // RECOVER_MS on until the next outage.
    const recoveries = outages.map(({ to }, i) => {
      const next = outages[i + 1]?.from ?? Infinity
      const between = answers.filter((a) => a.at >= to && a.at + a.ms < next)
      const late = between.filter((a) => a.status >= 300 && a.at >= to + RECOVER_MS)
      expect(late.map((a) => JSON.stringify(a)).slice(0, 10), `cycle ${i + 1}`).toEqual([])
      expect(between.filter((a) => a.at >= to + RECOVER_MS).length, `cycle ${i + 1}`).toBeGreaterThan(5)
      const api = between.filter((a) => a.call !== "readyz" && a.call !== "healthz")
      return {
        firstOk: Math.min(...api.filter((a) => a.status < 300).map((a) => a.at + a.ms - to)),
        lastNot: Math.max(0, ...between.filter((a) => a.status >= 300).map((a) => a.at + a.ms - to))
      }
    })
    console.log(`${answers.length} answers over ${outages.length} cycles, ${answers.filter(during).length} during outages; ` +
      `after each restore, first API 2xx at ${recoveries.map((r) => r.firstOk).join(", ")} ms, last non-2xx at ${recoveries.map((r) => r.lastNot).join(", ")} ms`)
  }, 600_000)
})
