import type { DuckDBConnection } from "@duckdb/node-api"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listClickFiles } from "../../shared/clicks/files.ts"
import { openDuckDb } from "../../shared/clicks/parquet.ts"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  eventually,
  removeDir,
  startControl,
  startEngineProcess,
  tempDir,
  visit
} from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/**
 * The click pipeline survives `kill -9` (docs/architecture.md#how-a-click-becomes-a-row: clicks are batched to Parquet; the engine's
 * spool acknowledges a click only once it is fsynced): `ricochet control` and one
 * `ricochet engine` on PostgreSQL, sharing the clicks directory; the engine is killed while
 * visits stream in and restarted with the same id and spool. Every click the engine had
 * acknowledged reaches the analytics, none twice, and none that was not answered.
 *
 * Each visit carries a unique `?n=` that the link passes on, so each recorded click has a
 * unique url and duplicates show up in the Parquet files themselves.
 */

const HOST = "my-workspace.localhost"
const PEOPLE_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
const CONCURRENCY = 8
type Engine = Awaited<ReturnType<typeof startEngineProcess>>

describe("clicks after kill -9 of the engine", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dir: string
  let clicksDir: string
  let env: Record<string, string | undefined>
  let control: ControlHandle
  let api: ReturnType<typeof apiClient>
  let duck: DuckDBConnection
  let engine: Engine | undefined

  /** Every n sent, every n answered with the redirect. */
  const sent = new Set<number>()
  const answered = new Set<number>()
  let next = 0

  beforeAll(async () => {
    db = await createTestDatabase()
    dir = await tempDir("ricochet-crash-")
    clicksDir = path.join(dir, "clicks")
    env = {
      DATABASE_URL: db.url,
      NATS_URL: undefined,
      RICOCHET_DATA_DIR: dir,
      RICOCHET_CLICKS_DIR: clicksDir,
      RICOCHET_SPOOL_DIR: path.join(dir, "spool"),
      RICOCHET_ENGINE_ID: "crash-engine",
      RICOCHET_SPOOL_FSYNC_MS: "50",
      RICOCHET_ROLL_SECONDS: "0.5"
    }
    control = await startControl(env, true)
    api = apiClient(control.baseUrl, control.firstKey!)
    const link = await api.post("/v1/links", { url: "https://example.com/crash", slug: "crash", passQuery: true })
    expect(link.status, JSON.stringify(link.body)).toBe(201)
    duck = await openDuckDb(1)
  }, 120_000)

  afterAll(async () => {
    await engine?.stop()
    await control?.stop()
    await db?.drop()
    duck?.closeSync()
    if (dir) await removeDir(dir)
  })

  const status = async (e: Engine) =>
    (await (await fetch(`${e.baseUrl}/.well-known/ricochet/status`)).json()) as {
      clicks: { people: number; agent: number; bot: number }
      sink: { acknowledged: number; rolled: number }
    }

  /** CONCURRENCY visitors in a loop until stopped or the engine stops answering. */
  const stream = (e: Engine) => {
    let stopped = false
    let killing = false
    const loops = Array.from({ length: CONCURRENCY }, async () => {
      while (!stopped) {
        const n = next++
        sent.add(n)
        try {
          const answer = await visit(e.baseUrl, HOST, `/crash?n=${n}`, { headers: { "user-agent": PEOPLE_UA } })
          if (answer.status !== 302 || answer.location !== `https://example.com/crash?n=${n}`) throw new Error(`unexpected answer ${answer.status} ${answer.location}`)
          answered.add(n)
        } catch (error) {
          // Requests in flight when the engine is killed fail; anything else is a failure of the test.
          if (!killing && e.child.exitCode === null && e.child.signalCode === null) throw error
          return
        }
      }
    })
    return {
      stop: () => void (stopped = true),
      kill: () => {
        killing = true
        e.child.kill("SIGKILL")
      },
      done: Promise.all(loops)
    }
  }

  /** Parquet as the analytics read it: rows and distinct urls, and the n of every row. */
  const parquet = async () => {
    const files = await listClickFiles(clicksDir, Date.now() - 86_400_000, Date.now() + 3_600_000)
    if (files.length === 0) return { rows: 0, distinct: 0, ns: [] as Array<number> }
    const list = files.map((f) => `'${f.replace(/'/g, "''")}'`).join(", ")
    const result = await duck.runAndReadAll(`SELECT url FROM read_parquet([${list}])`)
    const urls = result.getRowObjects().map((r) => String(r.url))
    return { rows: urls.length, distinct: new Set(urls).size, ns: urls.map((u) => Number(new URL(u).searchParams.get("n"))) }
  }

  const analyticsCount = async () => {
    const res = await api.get("/v1/analytics?groupBy=count&interval=24h")
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.data as { clicks: number; people: number; agents: number }
  }

  it("keeps every acknowledged click exactly once across two kill -9s, and every click of a graceful stop", async () => {
    let acknowledged = 0
    for (let round = 0; round < 2; round++) {
      engine = await startEngineProcess(env)
      const e = engine
      const flow = stream(e)
      // Watch the acknowledgements; kill once a good number are in, at a varying phase of the roll cycle.
      let seen = 0
      let watching = true
      const watcher = (async () => {
        while (watching) {
          try {
            seen = Math.max(seen, (await status(e)).sink.acknowledged)
          } catch {
            return
          }
          await sleep(5)
        }
      })()
      await eventually(async () => seen >= 150, 30_000, 10)
      const atWait = answered.size
      await sleep(200 + Math.floor(Math.random() * 600))
      const atKill = answered.size
      flow.kill()
      await e.exited
      watching = false
      await watcher
      flow.stop()
      await flow.done
      // Mid-stream: visits were being answered right up to the kill.
      expect(atKill).toBeGreaterThan(atWait)
      acknowledged += seen
    }

    // Restarted with the same id and spool: the leftover segments are rolled before it serves.
    engine = await startEngineProcess(env)
    const afterCrash = await parquet()
    expect(afterCrash.rows).toBe(afterCrash.distinct)
    expect(afterCrash.rows).toBeGreaterThanOrEqual(acknowledged)
    expect(afterCrash.rows).toBeLessThanOrEqual(answered.size)
    const answeredSet = new Set(answered)
    for (const n of afterCrash.ns) expect(answeredSet.has(n), `n=${n} recorded but never answered`).toBe(true)
    expect(await analyticsCount()).toEqual({ clicks: afterCrash.rows, people: afterCrash.rows, agents: 0 })

    // The restarted engine records new clicks, and a graceful stop flushes every one of them.
    const before = answered.size
    const flow = stream(engine)
    await sleep(700)
    flow.stop()
    await flow.done
    const more = answered.size - before
    expect(more).toBeGreaterThan(0)
    expect(await engine.stop("SIGTERM")).toBe(0)
    engine = undefined
    const final = await parquet()
    expect(final.rows).toBe(final.distinct)
    expect(final.rows).toBe(afterCrash.rows + more)
    expect(await analyticsCount()).toEqual({ clicks: final.rows, people: final.rows, agents: 0 })
    expect(sent.size).toBeGreaterThanOrEqual(answered.size)
  }, 120_000)
})
