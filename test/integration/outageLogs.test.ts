import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type ControlHandle,
  createTestDatabase,
  removeDir,
  startControl,
  startNats,
  tempDir
} from "../support/processes.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"
import { sleep } from "../support/time.ts"

/**
 * A database outage is told once, not every second: each background job (outbox publisher,
 * webhook deliveries and click feed, import runners, domain checks, housekeeping) logs one line
 * when its database goes away and one when it works again, without a stack. 100 s of outage
 * once gave 89 warn lines with stacks.
 */

interface LogLine {
  readonly level: string
  readonly message: string
  readonly fields?: Record<string, unknown>
}

const linesOf = (output: string): Array<LogLine> =>
  output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as LogLine)

describe("background jobs through a database outage", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let nats: Awaited<ReturnType<typeof startNats>>
  let proxy: TcpProxy
  let control: ControlHandle
  let dir: string

  beforeAll(async () => {
    db = await createTestDatabase()
    nats = await startNats()
    dir = await tempDir()
    const target = new URL(db.url)
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    target.port = String(proxy.port)
    control = await startControl({
      DATABASE_URL: target.toString(),
      NATS_URL: nats.url,
      RICOCHET_DATA_DIR: dir,
      RICOCHET_LOG_FORMAT: "json",
      RICOCHET_DB_TIMEOUT_SECONDS: "2",
      RICOCHET_DOMAIN_RECHECK_SECONDS: "3"
    }, true)
  }, 180_000)

  afterAll(async () => {
    await control?.stop()
    await proxy?.close()
    await nats?.stop()
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  it("logs each job's failure once when the outage begins and once when it is back, never a stack", { timeout: 120_000 }, async () => {
    const before = control.output().length
    await proxy.refuse()
    await sleep(15_000)
    const during = linesOf(control.output().slice(before))
    await proxy.restore()
    // Every job has run a round since: each that failed has said it works again.
    await sleep(8_000)
    const all = linesOf(control.output().slice(before))

    const failed = during.filter((line) => / failed: .*; retrying \(logged again once it works\)$/.test(line.message))
    const jobs = failed.map((line) => line.message.replace(/ failed: .*$/, ""))
    // The jobs that ask the database within 15 s have each failed, once. (The click feed asks only
    // once an engine's click files arrive: this control runs alone, so it has nothing to ask.)
    expect(jobs, JSON.stringify(during.map((l) => l.message))).toEqual(
      expect.arrayContaining(["outbox publisher", "webhook deliveries", "import runner 1", "import runner 2", "domain checks"])
    )
    expect(new Set(jobs).size, JSON.stringify(jobs)).toBe(jobs.length)
    for (const line of failed) {
      expect(line.level).toBe("warn")
      expect(JSON.stringify(line), "no stack").not.toContain("    at ")
    }
    // Besides these first failures, one line for the calls answered 503 (the jobs' own queries and any API call).
    const warnings = during.filter((line) => line.level === "warn" || line.level === "error")
    const unavailable = warnings.filter((line) => line.message.startsWith("database unavailable, answering 503"))
    expect(unavailable.length, JSON.stringify(warnings.map((l) => l.message))).toBeLessThanOrEqual(1)
    expect(warnings.length, JSON.stringify(warnings.map((l) => l.message))).toBe(failed.length + unavailable.length)
    for (const line of failed) expect(line.message, "the reason, not a wrapper's").not.toContain("An error occurred in Effect.tryPromise")

    const back = all.filter((line) => / works again after \d+ s \(\d+ failed rounds\)$/.test(line.message)).map((line) => line.message.replace(/ works again.*$/, ""))
    expect(back.sort(), JSON.stringify(all.map((l) => l.message))).toEqual([...new Set(jobs)].sort())
    // And the API answers again.
    expect((await fetch(`${control.baseUrl}/v1/links`, { headers: { authorization: `Bearer ${control.firstKey}` } })).status).toBe(200)
  })
})
