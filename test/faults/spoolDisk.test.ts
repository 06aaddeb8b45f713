import type { DuckDBConnection } from "@duckdb/node-api"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { listClickFiles } from "../../shared/clicks/files.ts"
import { openDuckDb, quote } from "../../shared/clicks/parquet.ts"
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
import { canChattr, immutableDirs } from "../support/immutableDirs.ts"

/**
 * The click writer through disk faults: a real `ricochet engine` (on PostgreSQL, beside
 * `ricochet control`) answers visits from people's browsers while its spool directory, or the
 * clicks directory it rolls Parquet into, is made immutable (`chattr +i`, which stops root too)
 * and then restored. Redirects go on throughout; recording resumes by itself; the Parquet files
 * hold exactly the visits answered minus the clicks the engine counted as dropped, none twice.
 *
 * Needs root and a file system with chattr (ext4 here); skipped otherwise.
 */

const HOST = "my-workspace.localhost"
const PEOPLE = [
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
]
const CONCURRENCY = 4
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
type Engine = Awaited<ReturnType<typeof startEngineProcess>>
interface Status {
  clicks: { people: number; agent: number; bot: number }
  sink: { acknowledged: number; rolled: number; pending: number }
  clicksDropped: number
}

describe.skipIf(!canChattr)("click recording through disk faults", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let root: string
  let env: Record<string, string | undefined>
  let control: ControlHandle
  let duck: DuckDBConnection
  const engines: Array<Engine> = []
  /** Directories made immutable by the running test: always restored, even when it fails. */
  const { freeze, thaw, thawAll } = immutableDirs()
  let next = 0

  beforeAll(async () => {
    db = await createTestDatabase()
    root = await tempDir("ricochet-disk-")
    env = {
      DATABASE_URL: db.url,
      NATS_URL: undefined,
      RICOCHET_DATA_DIR: root,
      RICOCHET_CLICKS_DIR: path.join(root, "control-clicks"),
      RICOCHET_SPOOL_FSYNC_MS: "20",
      RICOCHET_ROLL_SECONDS: "0.5"
    }
    control = await startControl(env, true)
    const api = apiClient(control.baseUrl, control.firstKey!)
    const link = await api.post("/v1/links", { url: "https://example.com/disk", slug: "disk", passQuery: true })
    expect(link.status, JSON.stringify(link.body)).toBe(201)
    duck = await openDuckDb(1)
  }, 120_000)

  afterEach(() => thawAll())

  afterAll(async () => {
    thawAll()
    for (const e of engines) await e.stop("SIGKILL")
    await control?.stop()
    await db?.drop()
    duck?.closeSync()
    if (root) await removeDir(root)
  })

  /**
   * An engine of its own (id, spool, clicks directory), so a test reads only its files, and
   * every visit it answered (`answered`, kept across the tests that share it).
   */
  const startEngine = async (name: string, extra: Record<string, string> = {}) => {
    const dirs = { spool: path.join(root, name, "spool"), clicks: path.join(root, name, "clicks") }
    const e = await startEngineProcess({ ...env, RICOCHET_ENGINE_ID: name, RICOCHET_SPOOL_DIR: dirs.spool, RICOCHET_CLICKS_DIR: dirs.clicks, ...extra })
    engines.push(e)
    // The engine keeps its spool in a subdirectory named after its id.
    return { e, spoolDir: path.join(dirs.spool, name), clicksDir: dirs.clicks, answered: new Set<number>() }
  }
  type Started = Awaited<ReturnType<typeof startEngine>>

  const status = async (e: Engine) => (await (await fetch(`${e.baseUrl}/.well-known/ricochet/status`)).json()) as Status

  /** Visitors in a loop until stopped; every visit must be answered with the redirect. */
  const stream = ({ e, answered }: Started) => {
    let stopped = false
    let count = 0
    const loops = Array.from({ length: CONCURRENCY }, async (_, i) => {
      while (!stopped) {
        const n = next++
        const answer = await visit(e.baseUrl, HOST, `/disk?n=${n}`, { headers: { "user-agent": PEOPLE[(n + i) % PEOPLE.length] } })
        if (answer.status !== 302 || answer.location !== `https://example.com/disk?n=${n}`) throw new Error(`visit ${n}: ${answer.status} ${answer.location}`)
        answered.add(n)
        count++
      }
    })
    const done = Promise.all(loops)
    // A failed visit fails the test when it awaits `stop`, not as an unhandled rejection.
    done.catch(() => {})
    return {
      answered: () => count,
      stop: async () => {
        stopped = true
        await done
      }
    }
  }

  /** Everything the engine saw is acknowledged and rolled (or counted dropped): its Parquet files are complete. */
  const settled = async ({ e, answered }: Started): Promise<Status> => {
    let now!: Status
    await eventually(async () => {
      now = await status(e)
      return now.clicks.people === answered.size && now.sink.pending === 0 && now.sink.acknowledged + now.clicksDropped === answered.size &&
        now.sink.rolled === now.sink.acknowledged
    }, 30_000, 50)
    return now
  }

  /** The Parquet files hold exactly the answered visits minus the dropped ones: none twice, none that was not answered. */
  const expectRecorded = async ({ clicksDir, answered }: Started, dropped: number) => {
    const files = await listClickFiles(clicksDir, Date.now() - 86_400_000, Date.now() + 3_600_000)
    const rows = files.length === 0
      ? []
      : (await duck.runAndReadAll(`SELECT url FROM read_parquet([${files.map(quote).join(", ")}], hive_partitioning = false)`)).getRowObjects()
    const ns = rows.map((r) => Number(new URL(String(r.url)).searchParams.get("n")))
    expect(new Set(ns).size, "a click recorded twice").toBe(ns.length)
    for (const n of ns) expect(answered.has(n), `n=${n} recorded but never answered`).toBe(true)
    expect(ns.length).toBe(answered.size - dropped)
  }

  /** How often the engine logged `needle` since `from` (an offset in its output). */
  const logged = (e: Engine, from: number, needle: string) => e.output().slice(from).split(needle).length - 1

  /** Started together (the slow part of this file): one with the default buffer, one with a small one. */
  let defaultBuffer: Started
  let smallBuffer: Started
  beforeAll(async () => {
    ;[defaultBuffer, smallBuffer] = await Promise.all([startEngine("default-buffer"), startEngine("small-buffer", {
      RICOCHET_SPOOL_BUFFER_CLICKS: "300",
      // Served on the main thread: its clicks reach the writer at the pace of the requests.
      // Workers' batches can arrive together and fill a 300-click buffer before the disk fault
      // starts, which would add an episode to the log lines this test counts.
      RICOCHET_ENGINE_WORKERS: "0"
    })])
  }, 120_000)

  describe("with the default spool buffer", () => {
    let engine: Started
    beforeAll(() => {
      engine = defaultBuffer
    })

    it("spool directory and its segment immutable for 5 s: redirects go on, clicks wait in memory, then all are written", async () => {
      const { e, spoolDir } = engine
      const logFrom = e.output().length
      const flow = stream(engine)
      await eventually(async () => (await status(e)).sink.rolled >= 50, 30_000, 50)

      freeze(spoolDir)
      const atFreeze = flow.answered()
      await sleep(1_000)
      const early = await status(e)
      await sleep(4_000)
      const late = await status(e)
      // Nothing reaches the disk while it refuses; the clicks wait, counted, and none is dropped.
      expect(late.sink.acknowledged).toBe(early.sink.acknowledged)
      expect(late.sink.pending).toBeGreaterThan(early.sink.pending)
      expect(late.clicksDropped).toBe(0)
      expect(flow.answered() - atFreeze, "redirects went on").toBeGreaterThan(50)
      thaw(spoolDir)

      // Recording resumes by itself: what waited is written, and new visits are too.
      await eventually(async () => (await status(e)).sink.acknowledged >= late.sink.acknowledged + late.sink.pending, 20_000, 50)
      const resumedAt = flow.answered()
      await eventually(async () => flow.answered() > resumedAt + 50, 20_000, 50)
      await flow.stop()
      expect((await settled(engine)).clicksDropped).toBe(0)
      await expectRecorded(engine, 0)
      // One line when writing started failing and one when it worked again, not one per batch or retry.
      expect(logged(e, logFrom, "click spool: writing failed"), e.output()).toBe(1)
      expect(logged(e, logFrom, "click spool: writing again"), e.output()).toBe(1)
    }, 90_000)

    it("clicks directory immutable for 4 s: clicks are acknowledged in the spool, the roll waits, then catches up", async () => {
      const { e, clicksDir } = engine
      const logFrom = e.output().length
      const flow = stream(engine)
      const before = await status(e)
      await eventually(async () => (await status(e)).sink.rolled >= before.sink.rolled + 50, 30_000, 50)

      freeze(clicksDir)
      await sleep(1_000)
      const early = await status(e)
      await sleep(3_000)
      const late = await status(e)
      expect(late.sink.acknowledged, "acknowledged while Parquet is stuck").toBeGreaterThan(early.sink.acknowledged)
      expect(late.sink.rolled, "nothing rolled while the clicks directory is immutable").toBe(early.sink.rolled)
      expect(late.clicksDropped).toBe(0)
      thaw(clicksDir)

      await eventually(async () => (await status(e)).sink.rolled >= late.sink.acknowledged, 20_000, 50)
      await flow.stop()
      expect((await settled(engine)).clicksDropped).toBe(0)
      await expectRecorded(engine, 0)
      expect(logged(e, logFrom, "click roll failed"), e.output()).toBe(1)
      expect(logged(e, logFrom, "click roll: working again"), e.output()).toBe(1)
    }, 90_000)
  })

  it("a spool buffer too small for the outage: clicks beyond it are dropped and counted, the rest written, one line in the log; a graceful stop loses nothing more", async () => {
    const engine = smallBuffer
    const { e, spoolDir } = engine
    const flow = stream(engine)
    await eventually(async () => (await status(e)).sink.rolled >= 50, 30_000, 50)

    freeze(spoolDir)
    await eventually(async () => (await status(e)).clicksDropped > 100, 20_000, 50)
    expect((await status(e)).sink.pending).toBeLessThanOrEqual(300)
    thaw(spoolDir)

    await eventually(async () => (await status(e)).sink.pending < 300, 20_000, 50)
    await flow.stop()
    const final = await settled(engine)
    expect(final.clicksDropped).toBeGreaterThan(100)
    expect(await e.stop("SIGTERM")).toBe(0)
    await expectRecorded(engine, final.clicksDropped)
    expect(logged(e, 0, "clicks dropped"), e.output()).toBe(1)
    expect(logged(e, 0, "clicks are being written again"), e.output()).toBe(1)
  }, 90_000)
})
