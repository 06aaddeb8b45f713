import type { DuckDBConnection } from "@duckdb/node-api"
import { mkdir, open, readdir, readFile, stat, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { SpoolFullError, SpoolSink } from "../../engine/clicks/spoolSink.ts"
import type { ClickRecord } from "../../shared/clicks/click.ts"
import { listClickFiles } from "../../shared/clicks/files.ts"
import { clickLine, encodeClicks, selectClicksCsv, writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { openDuckDb, partitionOf } from "../../shared/clicks/parquet.ts"
import { clickFromRow, clickRecord } from "../support/clickRecord.ts"
import { FaultyDisk } from "../support/faultyDisk.ts"
import { canChattr, immutableDirs } from "../support/immutableDirs.ts"
import { removeDir, tempDir } from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/**
 * The engine's durable click sink: acknowledged only once fsynced to the spool, rolled into
 * Parquet per hour, and recovered after a crash without losing or duplicating a click.
 */

const HOUR = 3_600_000
const T = Date.parse("2030-06-15T10:20:00.000Z")
const ENGINE = "engine-a"

let duck: DuckDBConnection
beforeAll(async () => {
  duck = await openDuckDb()
})
afterAll(() => {
  duck?.closeSync()
})

let serial = 0
const click = (fields: Partial<ClickRecord> = {}): ClickRecord => {
  serial++
  return clickRecord({
    timestamp: T + serial,
    workspaceId: "ws_1",
    url: `https://example.com/?n=${serial}`,
    audience: serial % 3 === 0 ? "agent" : "people",
    country: serial % 2 === 0 ? "US" : null,
    refererHost: serial % 2 === 0 ? "t.co" : null,
    utmSource: serial % 5 === 0 ? "news'letter" : null,
    abVariant: serial % 4 === 0 ? 1 : null,
    visitorHash: `h${serial}`,
    ...fields
  })
}
const clicks = (n: number, fields: Partial<ClickRecord> = {}) => Array.from({ length: n }, () => click(fields))

/** What a Parquet file gives back, in the shape of a ClickRecord. */
const readBack = async (files: ReadonlyArray<string>): Promise<Array<ClickRecord>> => {
  if (files.length === 0) return []
  const result = await duck.runAndReadAll(
    `SELECT epoch_ms(timestamp)::BIGINT AS timestamp, * EXCLUDE (timestamp) FROM read_parquet([${files.map((f) => `'${f.replace(/'/g, "''")}'`).join(", ")}]) ORDER BY url`
  )
  return result.getRowObjects().map(clickFromRow)
}
const byUrl = (list: ReadonlyArray<ClickRecord>) => [...list].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))

/** Every Parquet file under the clicks directory (not the manifest-based view: there is no manifest here). */
const parquetFiles = async (clicksDir: string): Promise<Array<string>> => {
  const found: Array<string> = []
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) await walk(full)
      else found.push(full)
    }
  }
  await walk(clicksDir)
  return found.sort()
}

const frame = encodeClicks
const segmentName = (seq: number) => `${String(seq).padStart(16, "0")}.csv`

/** A spool segment's clicks as DuckDB reads them when it rolls the segment. */
const readSegment = async (file: string): Promise<Array<ClickRecord>> => {
  const staging = path.join(path.dirname(file), "..", `${path.basename(file)}.parquet`)
  await duck.run(`COPY (${selectClicksCsv(file)}) TO '${staging}' (FORMAT parquet)`)
  return readBack([staging])
}

describe("SpoolSink", () => {
  let root: string
  let spoolDir: string
  let clicksDir: string
  const sinks: Array<SpoolSink> = []

  beforeEach(async () => {
    root = await tempDir("ricochet-spool-")
    spoolDir = path.join(root, "spool")
    clicksDir = path.join(root, "clicks")
  })
  const dirs = immutableDirs()
  afterEach(async () => {
    dirs.thawAll()
    for (const sink of sinks.splice(0)) await sink.close().catch(() => {})
    vi.restoreAllMocks()
    await removeDir(root)
  })

  const openSink = async (
    options: {
      fsyncMs?: number
      rollMs?: number
      disk?: FaultyDisk
      maxPendingClicks?: number
      maxPendingBytes?: number
      closeWaitMs?: number
      refuse?: () => string | undefined
      onRolled?: () => void
    } = {}
  ) => {
    const sink = await SpoolSink.open(
      {
        spoolDir,
        clicksDir,
        engineId: ENGINE,
        fsyncMs: options.fsyncMs ?? 20,
        // Rolled by the test unless it asks otherwise.
        rollMs: options.rollMs ?? 3_600_000,
        duck,
        maxPendingClicks: options.maxPendingClicks,
        maxPendingBytes: options.maxPendingBytes,
        closeWaitMs: options.closeWaitMs,
        refuse: options.refuse,
        onRolled: options.onRolled
      },
      options.disk?.open
    )
    sinks.push(sink)
    return sink
  }
  const segments = async () => (await readdir(spoolDir)).filter((n) => n.endsWith(".csv") || n.endsWith(".spool")).sort()

  it("acknowledges a write only once it is fsynced, one fsync for a group of writes", async () => {
    const probe = await open(path.join(root, "probe"), "w")
    const handleProto = Object.getPrototypeOf(probe)
    await probe.close()
    const events: Array<string> = []
    const datasync = handleProto.datasync as (this: unknown) => Promise<void>
    const spy = vi.spyOn(handleProto, "datasync").mockImplementation(async function(this: unknown) {
      events.push("fsync-start")
      await datasync.call(this)
      events.push("fsync-done")
    })

    const sink = await openSink({ fsyncMs: 50 })
    const a = clicks(3)
    const b = clicks(2)
    const c = clicks(4)
    const acked: Array<number> = []
    const writes = [a, b, c].map((batch, i) =>
      sink.write(batch).then(() => {
        events.push(`ack-${i}`)
        acked.push(sink.counts.acknowledged)
      })
    )
    // Nothing is acknowledged before the group commit.
    expect(sink.counts.acknowledged).toBe(0)
    await sleep(10)
    expect(events).toEqual([])
    expect(sink.counts.acknowledged).toBe(0)

    await Promise.all(writes)
    expect(events).toEqual(["fsync-start", "fsync-done", "ack-0", "ack-1", "ack-2"])
    expect(spy).toHaveBeenCalledTimes(1)
    expect(acked).toEqual([9, 9, 9])
    expect(sink.counts).toEqual({ acknowledged: 9, rolled: 0, pending: 0, unrolled: 9 })

    // On disk in the spool, in order, at the moment of the acknowledgement.
    const [segment] = await segments()
    expect(await readFile(path.join(spoolDir, segment))).toEqual(Buffer.concat([frame(a), frame(b), frame(c)]))
    expect(await readSegment(path.join(spoolDir, segment))).toEqual(byUrl([...a, ...b, ...c]))

    // A later write is a later commit.
    await sink.write(clicks(1))
    expect(spy).toHaveBeenCalledTimes(2)
    expect(sink.counts.acknowledged).toBe(10)
  })

  it("rolls the spool into Parquet holding exactly the written clicks, one file per hour", async () => {
    const sink = await openSink()
    const ten = clicks(5, { timestamp: T })
    const eleven = clicks(3, { timestamp: T + HOUR })
    const nextDay = clicks(2, { timestamp: Date.parse("2030-06-16T00:00:01.000Z") })
    await Promise.all([sink.write(ten), sink.write([...eleven, ...nextDay])])
    const [sealed] = await segments()
    const seq = Number(sealed.slice(0, 16))

    await sink.roll()
    expect(sink.counts).toEqual({ acknowledged: 10, rolled: 10, pending: 0, unrolled: 0 })
    const files = await parquetFiles(clicksDir)
    expect(files).toEqual([
      path.join(clicksDir, "date=2030-06-15", "hour=10", `${ENGINE}-${seq}.parquet`),
      path.join(clicksDir, "date=2030-06-15", "hour=11", `${ENGINE}-${seq}.parquet`),
      path.join(clicksDir, "date=2030-06-16", "hour=00", `${ENGINE}-${seq}.parquet`)
    ])
    expect(await readBack([files[0]])).toEqual(byUrl(ten))
    expect(await readBack([files[1]])).toEqual(byUrl(eleven))
    expect(await readBack([files[2]])).toEqual(byUrl(nextDay))
    for (const [file, list] of [[files[0], ten], [files[1], eleven], [files[2], nextDay]] as const) {
      expect(path.dirname(path.relative(clicksDir, file))).toBe(partitionOf(list[0].timestamp).dir)
    }

    // The sealed segment is gone; a new one takes the next writes.
    const after = await segments()
    expect(after).not.toContain(sealed)
    expect(after).toHaveLength(1)
    const more = clicks(2, { timestamp: T })
    await sink.write(more)
    await sink.roll()
    const all = await listClickFiles(clicksDir, T - HOUR, T + 2 * DAY_MS)
    expect(await readBack(all)).toEqual(byUrl([...ten, ...eleven, ...nextDay, ...more]))
    expect(sink.counts).toEqual({ acknowledged: 12, rolled: 12, pending: 0, unrolled: 0 })

    // Nothing to roll: no empty files.
    await sink.roll()
    expect(await parquetFiles(clicksDir)).toHaveLength(4)
  })

  /** The SQL the sink sends DuckDB while `during` runs. */
  const statements = async (during: () => Promise<void>): Promise<Array<string>> => {
    const sent: Array<string> = []
    const run = duck.run.bind(duck)
    const runAndReadAll = duck.runAndReadAll.bind(duck)
    vi.spyOn(duck, "run").mockImplementation((sql, ...rest) => (sent.push(sql), run(sql, ...rest)))
    vi.spyOn(duck, "runAndReadAll").mockImplementation((sql, ...rest) => (sent.push(sql), runAndReadAll(sql, ...rest)))
    try {
      await during()
    } finally {
      vi.mocked(duck.run).mockRestore()
      vi.mocked(duck.runAndReadAll).mockRestore()
    }
    return sent
  }

  it("rolls a segment whose clicks are all in one hour with one COPY straight from its CSV", async () => {
    const sink = await openSink()
    const within = [...clicks(4, { timestamp: T }), ...clicks(3, { timestamp: T + 59_000 })]
    await Promise.all([sink.write(within.slice(0, 4)), sink.write(within.slice(4))])
    const sent = await statements(() => sink.roll())
    expect(sent).toHaveLength(1)
    expect(sent[0]).toMatch(/^COPY \(SELECT .* FROM read_csv\(/)
    expect(sink.counts).toEqual({ acknowledged: 7, rolled: 7, pending: 0, unrolled: 0 })
    const files = await parquetFiles(clicksDir)
    expect(files.map((file) => path.dirname(path.relative(clicksDir, file)))).toEqual([partitionOf(T).dir])
    expect(await readBack(files)).toEqual(byUrl(within))

    // A segment over two hours still goes through the staging table, one file per hour.
    const across = [...clicks(2, { timestamp: T }), ...clicks(2, { timestamp: T + HOUR })]
    await sink.write(across)
    const again = await statements(() => sink.roll())
    expect(again.some((sql) => sql.startsWith("CREATE OR REPLACE TEMP TABLE"))).toBe(true)
    expect(sink.counts).toEqual({ acknowledged: 11, rolled: 11, pending: 0, unrolled: 0 })
    expect(await readBack(await parquetFiles(clicksDir))).toEqual(byUrl([...within, ...across]))
  })

  it("a one-hour segment with a record that does not parse keeps the ones that do", async () => {
    const sink = await openSink()
    const good = clicks(3, { timestamp: T })
    await sink.write(good)
    // Bytes no write of the sink made (as a damaged disk might return them), in the active segment.
    const [active] = await segments()
    await writeFile(path.join(spoolDir, active), "garbage,\"x\n", { flag: "a" })
    const errors = vi.spyOn(console, "error").mockImplementation(() => {})
    await sink.roll()
    expect(errors).toHaveBeenCalled()
    expect(await readBack(await parquetFiles(clicksDir))).toEqual(byUrl(good))
    expect(sink.counts.rolled).toBe(3)
    expect(await segments()).toHaveLength(1)
  })

  it("loses no write that commits while a roll switches segments", async () => {
    // Regression: a commit starting while roll() closed the sealed segment wrote to the closed
    // handle, failed its writers ("file closed") and dropped their clicks.
    const sink = await openSink({ fsyncMs: 1 })
    const written: Array<ClickRecord> = []
    const outcomes: Array<Promise<string>> = []
    const end = Date.now() + 1_200
    const rolls = (async () => {
      while (Date.now() < end) {
        await sink.roll()
        await sleep(3)
      }
    })()
    while (Date.now() < end) {
      const batch = clicks(1 + (written.length % 3))
      written.push(...batch)
      outcomes.push(sink.write(batch).then(() => "ok", (e) => String(e)))
      await sleep(1)
    }
    await rolls
    const results = await Promise.all(outcomes)
    expect(results.filter((r) => r !== "ok")).toEqual([])
    await sink.roll()
    expect(sink.counts).toEqual({ acknowledged: written.length, rolled: written.length, pending: 0, unrolled: 0 })
    expect(await readBack(await parquetFiles(clicksDir))).toEqual(byUrl(written))
  })

  it("refuses new clicks while told to (the click bucket's outbox at its budget), and says after each roll that files are there", async () => {
    let full: string | undefined = "12 click files wait for the click bucket"
    let rolls = 0
    const sink = await openSink({ refuse: () => full, onRolled: () => rolls++ })
    await expect(sink.write(clicks(3))).rejects.toBeInstanceOf(SpoolFullError)
    await expect(sink.write(clicks(1))).rejects.toThrow(/^click outbox is full \(12 click files wait for the click bucket\)$/)
    expect(sink.counts).toEqual({ acknowledged: 0, rolled: 0, pending: 0, unrolled: 0 })
    full = undefined
    const taken = clicks(2)
    await sink.write(taken)
    expect(rolls).toBe(0)
    await sink.roll()
    expect(rolls).toBe(1)
    expect(await readBack(await parquetFiles(clicksDir))).toEqual(byUrl(taken))
  })

  it("rolls on its own every rollMs, and close() flushes what is pending", async () => {
    const sink = await openSink({ fsyncMs: 5, rollMs: 100 })
    const first = clicks(4)
    await sink.write(first)
    const deadline = Date.now() + 5_000
    while (sink.counts.rolled < 4 && Date.now() < deadline) await sleep(20)
    expect(sink.counts.rolled).toBe(4)
    const last = clicks(3)
    void sink.write(last)
    await sink.close()
    sinks.splice(sinks.indexOf(sink), 1)
    expect(sink.counts).toEqual({ acknowledged: 7, rolled: 7, pending: 0, unrolled: 0 })
    expect(await readBack(await parquetFiles(clicksDir))).toEqual(byUrl([...first, ...last]))
    await expect(sink.write(clicks(1))).rejects.toThrow()
  })

  it("rolls a leftover segment on open, once, dropping its torn last record", async () => {
    await mkdir(spoolDir, { recursive: true })
    const one = clicks(2)
    const two = clicks(3, { timestamp: T + HOUR })
    // A batch torn by the crash: its whole records count, the cut one does not.
    const partial = clicks(4)
    const torn = frame(partial)
    const seq = 1_700_000_000_000_005
    await writeFile(path.join(spoolDir, segmentName(seq)), Buffer.concat([frame(one), frame(two), torn.subarray(0, torn.length - 7)]))

    const sink = await openSink()
    expect(sink.counts).toEqual({ acknowledged: 0, rolled: 8, pending: 0, unrolled: 0 })
    expect(await segments()).not.toContain(segmentName(seq))
    const files = await parquetFiles(clicksDir)
    expect(files).toEqual([
      path.join(clicksDir, "date=2030-06-15", "hour=10", `${ENGINE}-${seq}.parquet`),
      path.join(clicksDir, "date=2030-06-15", "hour=11", `${ENGINE}-${seq}.parquet`)
    ])
    expect(await readBack(files)).toEqual(byUrl([...one, ...two, ...partial.slice(0, 3)]))

    // New segments sort after the recovered one, and another start rolls nothing again.
    const [current] = await segments()
    expect(Number(current.slice(0, 16))).toBeGreaterThan(seq)
    await sink.close()
    sinks.splice(sinks.indexOf(sink), 1)
    const again = await openSink()
    expect(again.counts.rolled).toBe(0)
    expect(await readBack(await parquetFiles(clicksDir))).toEqual(byUrl([...one, ...two, ...partial.slice(0, 3)]))
  })

  it("recovers several leftover segments in order, including a segment holding only a torn frame", async () => {
    await mkdir(spoolDir, { recursive: true })
    const a = clicks(3)
    const b = clicks(2)
    await writeFile(path.join(spoolDir, segmentName(1_700_000_000_000_001)), frame(a))
    await writeFile(path.join(spoolDir, segmentName(1_700_000_000_000_002)), frame(b))
    await writeFile(path.join(spoolDir, segmentName(1_700_000_000_000_003)), frame(clicks(2)).subarray(0, 3))
    const sink = await openSink()
    expect(sink.counts.rolled).toBe(5)
    expect(await readBack(await parquetFiles(clicksDir))).toEqual(byUrl([...a, ...b]))
    expect(await segments()).toHaveLength(1)
  })

  it("does not duplicate when a crash came between writing the Parquet and deleting the segment", async () => {
    await mkdir(spoolDir, { recursive: true })
    const ten = clicks(4, { timestamp: T })
    const eleven = clicks(3, { timestamp: T + HOUR })
    const seq = 1_700_000_000_000_042
    await writeFile(path.join(spoolDir, segmentName(seq)), Buffer.concat([frame(ten.slice(0, 2)), frame([...ten.slice(2), ...eleven])]))
    // The roll had written the hour-10 file (and maybe all of them) before the crash.
    const tenFile = path.join(clicksDir, partitionOf(T).dir, `${ENGINE}-${seq}.parquet`)
    await writeClicksParquet(duck, ten, tenFile)
    const before = await stat(tenFile)

    const sink = await openSink()
    expect(await segments()).not.toContain(segmentName(seq))
    const files = await parquetFiles(clicksDir)
    expect(files).toEqual([tenFile, path.join(clicksDir, partitionOf(T + HOUR).dir, `${ENGINE}-${seq}.parquet`)])
    expect((await stat(tenFile)).mtimeMs).toBe(before.mtimeMs)
    const back = await readBack(files)
    expect(back).toEqual(byUrl([...ten, ...eleven]))
    expect(new Set(back.map((c) => c.url)).size).toBe(back.length)
    expect(sink.counts.rolled).toBe(7)
  })

  it("does not duplicate when every Parquet file of the segment was already in place", async () => {
    await mkdir(spoolDir, { recursive: true })
    const list = clicks(5, { timestamp: T })
    const seq = 1_700_000_000_000_077
    await writeFile(path.join(spoolDir, segmentName(seq)), frame(list))
    await writeClicksParquet(duck, list, path.join(clicksDir, partitionOf(T).dir, `${ENGINE}-${seq}.parquet`))
    await openSink()
    expect(await segments()).toHaveLength(1)
    expect(await readBack(await parquetFiles(clicksDir))).toEqual(byUrl(list))
  })

  it("keeps every value exactly: commas, quotes, newlines, NULs, non-ASCII, empty strings apart from nulls", async () => {
    const awkward = [
      click({ url: "https://example.com/a,b?q=\"x\"", utmSource: "a\nb", utmMedium: "", utmCampaign: "x\u0000y", utmTerm: "é漢字😀", utmContent: "\"" }),
      click({ city: "Washington, D.C.", region: "\\N", utmSource: "NULL", utmMedium: "cr\r\nlf", refererHost: null, country: null })
    ]
    const sink = await openSink()
    await sink.write(awkward)
    await sink.roll()
    expect(await readBack(await parquetFiles(clicksDir))).toEqual(byUrl(awkward))
  })

  it("a torn record holding a quoted newline is dropped, the rest kept", async () => {
    await mkdir(spoolDir, { recursive: true })
    const whole = clicks(3)
    const tornLine = clickLine(click({ utmSource: "line one\nline two" }))
    const cut = Buffer.from(tornLine.slice(0, tornLine.indexOf("line two") + 4))
    const seq = 1_700_000_000_000_011
    await writeFile(path.join(spoolDir, segmentName(seq)), Buffer.concat([frame(whole), cut]))
    const errors = vi.spyOn(console, "error").mockImplementation(() => {})
    const sink = await openSink()
    expect(sink.counts.rolled).toBe(3)
    expect(await readBack(await parquetFiles(clicksDir))).toEqual(byUrl(whole))
    expect(errors).toHaveBeenCalled()
  })

  it("a record that does not parse does not block the segment or the ones after it", async () => {
    await mkdir(spoolDir, { recursive: true })
    const before = clicks(2)
    const after = clicks(2)
    const later = clicks(1)
    await writeFile(path.join(spoolDir, segmentName(1_700_000_000_000_021)), Buffer.concat([frame(before), Buffer.from("garbage,\"x\n"), frame(after)]))
    await writeFile(path.join(spoolDir, segmentName(1_700_000_000_000_022)), frame(later))
    vi.spyOn(console, "error").mockImplementation(() => {})
    const sink = await openSink()
    expect(await segments()).toHaveLength(1)
    const back = await readBack(await parquetFiles(clicksDir))
    expect(back).toEqual(expect.arrayContaining([...before, ...later]))
    expect(sink.counts.rolled).toBe(back.length)
  })

  describe("through disk faults", () => {
    const quiet = () => vi.spyOn(console, "error").mockImplementation(() => {})
    const logged = (spy: ReturnType<typeof quiet>, text: string) => spy.mock.calls.filter(([message]) => String(message).includes(text)).length
    const activeSegment = async () => readFile(path.join(spoolDir, (await segments()).at(-1)!))
    const rolledBack = async () => readBack(await parquetFiles(clicksDir))

    it("a disk that refuses writes: batches wait in order, retried with backoff, and are written once when it takes them again", async () => {
      const log = quiet()
      const disk = new FaultyDisk()
      const sink = await openSink({ fsyncMs: 5, disk })
      const before = clicks(2)
      await sink.write(before)
      disk.down = true
      const during = [clicks(3), clicks(1), clicks(4)]
      const acked: Array<number> = []
      const writes = during.map((batch, i) => sink.write(batch).then(() => void acked.push(i)))
      await sleep(1_000)
      // Attempts at about 5, 105, 305 and 705 ms (100 ms doubling), not one per fsync interval.
      const attempts = disk.calls.writev + disk.calls.truncate - 1
      expect(attempts).toBeGreaterThanOrEqual(3)
      expect(attempts).toBeLessThanOrEqual(6)
      expect(acked).toEqual([])
      expect(sink.counts).toEqual({ acknowledged: 2, rolled: 0, pending: 8, unrolled: 2 })

      disk.down = false
      await Promise.all(writes)
      expect(acked).toEqual([0, 1, 2])
      expect(sink.counts).toEqual({ acknowledged: 10, rolled: 0, pending: 0, unrolled: 10 })
      expect(await activeSegment()).toEqual(Buffer.concat([frame(before), ...during.map(frame)]))
      await sink.roll()
      expect(await rolledBack()).toEqual(byUrl([...before, ...during.flat()]))
      // One line when it started failing, one when it worked again: not one per retry.
      expect(logged(log, "click spool: writing failed")).toBe(1)
      expect(logged(log, "click spool: writing again")).toBe(1)
    })

    it.each<readonly [string, (first: Buffer) => number]>([
      ["at a record boundary (whole records of the batch on disk)", (first) => first.length],
      ["inside a record", (first) => first.length + 17],
      ["inside the first record", () => 9]
    ])("a write torn %s is cut back before the retry: every record once, none torn", async (_case, cut) => {
      quiet()
      const disk = new FaultyDisk()
      const sink = await openSink({ fsyncMs: 5, disk })
      const first = clicks(3)
      await sink.write(first)
      const a = clicks(2)
      const b = clicks(3)
      disk.writes.push({ kind: "tear", bytes: cut(frame(a)) })
      await Promise.all([sink.write(a), sink.write(b)])
      expect(await activeSegment()).toEqual(Buffer.concat([frame(first), frame(a), frame(b)]))
      expect(disk.calls.truncate).toBe(1)
      expect(sink.counts).toEqual({ acknowledged: 8, rolled: 0, pending: 0, unrolled: 8 })
      await sink.roll()
      expect(await rolledBack()).toEqual(byUrl([...first, ...a, ...b]))
    })

    it("a short write (the disk filled mid-batch, no error) is finished, not taken for a whole one", async () => {
      const disk = new FaultyDisk()
      const sink = await openSink({ fsyncMs: 5, disk })
      const a = clicks(4)
      disk.writes.push({ kind: "short", bytes: 10 })
      await sink.write(a)
      expect(disk.calls.writev).toBe(2)
      expect(await activeSegment()).toEqual(frame(a))

      // A short write whose rest then fails: cut back and written again, once.
      quiet()
      const b = clicks(3)
      disk.writes.push({ kind: "short", bytes: 25 }, { kind: "refuse" })
      await sink.write(b)
      expect(await activeSegment()).toEqual(Buffer.concat([frame(a), frame(b)]))
      expect(sink.counts).toEqual({ acknowledged: 7, rolled: 0, pending: 0, unrolled: 7 })
    })

    it("a failed fsync keeps the batch: the bytes are cut back, written again and acknowledged once", async () => {
      quiet()
      const disk = new FaultyDisk()
      const sink = await openSink({ fsyncMs: 5, disk })
      const a = clicks(2)
      await sink.write(a)
      const b = clicks(3)
      disk.failSyncs = 1
      const acknowledgedAt: Array<number> = []
      await sink.write(b).then(() => void acknowledgedAt.push(sink.counts.acknowledged))
      expect(acknowledgedAt).toEqual([5])
      // The fsync failed after the bytes were written: they were cut and written again, not kept.
      expect(disk.calls.truncate).toBe(1)
      expect(await activeSegment()).toEqual(Buffer.concat([frame(a), frame(b)]))
    })

    it("a cut the disk refuses holds the retry back: nothing is written after torn bytes", async () => {
      quiet()
      const disk = new FaultyDisk()
      const sink = await openSink({ fsyncMs: 5, disk })
      const a = clicks(2)
      const b = clicks(2)
      disk.writes.push({ kind: "tear", bytes: frame(a).length })
      disk.failTruncates = 2
      await Promise.all([sink.write(a), sink.write(b)])
      expect(disk.calls.truncate).toBe(3)
      // After the tear, the only writes were the one that followed the successful cut.
      expect(disk.calls.writev).toBe(2)
      expect(await activeSegment()).toEqual(Buffer.concat([frame(a), frame(b)]))
    })

    it.each<readonly [string, (batches: { six: Buffer; four: Buffer }) => { maxPendingClicks?: number; maxPendingBytes?: number }]>([
      ["clicks", () => ({ maxPendingClicks: 10 })],
      ["bytes", ({ six, four }) => ({ maxPendingBytes: six.length + four.length })]
    ])("beyond its bound in %s, write() refuses at once with SpoolFullError; what waits is written", async (_case, bound) => {
      quiet()
      const disk = new FaultyDisk()
      const six = clicks(6)
      const five = clicks(5)
      const four = clicks(4)
      const sink = await openSink({ fsyncMs: 5, disk, ...bound({ six: frame(six), four: frame(four) }) })
      disk.down = true
      const kept = [sink.write(six)]
      await expect(sink.write(five)).rejects.toBeInstanceOf(SpoolFullError)
      kept.push(sink.write(four))
      expect(sink.counts.pending).toBe(10)
      await expect(sink.write(clicks(1))).rejects.toThrow(/click spool buffer is full/)
      disk.down = false
      await Promise.all(kept)
      expect(sink.counts).toEqual({ acknowledged: 10, rolled: 0, pending: 0, unrolled: 10 })
      // Room again once the disk took them.
      await sink.write(five)
      await sink.roll()
      expect(await rolledBack()).toEqual(byUrl([...six, ...four, ...five]))
    })

    it("a batch larger than the bound is taken when nothing waits", async () => {
      quiet()
      const disk = new FaultyDisk()
      const sink = await openSink({ fsyncMs: 5, disk, maxPendingClicks: 3 })
      disk.down = true
      const big = sink.write(clicks(5))
      await expect(sink.write(clicks(1))).rejects.toBeInstanceOf(SpoolFullError)
      disk.down = false
      await big
      expect(sink.counts).toEqual({ acknowledged: 5, rolled: 0, pending: 0, unrolled: 5 })
    })

    it("a roll that cannot start a new segment goes on writing to the current one; the next roll seals it", async () => {
      // Regression: the roll closed the segment before opening the next; when the open failed,
      // every later write failed with "file closed" until a restart.
      const disk = new FaultyDisk()
      const sink = await openSink({ fsyncMs: 5, disk })
      const a = clicks(3)
      await sink.write(a)
      disk.failOpens = 1
      await expect(sink.roll()).rejects.toThrow(/EIO/)
      const b = clicks(2)
      await sink.write(b)
      expect(sink.counts).toEqual({ acknowledged: 5, rolled: 0, pending: 0, unrolled: 5 })
      expect(await segments()).toHaveLength(1)
      await sink.roll()
      expect(sink.counts).toEqual({ acknowledged: 5, rolled: 5, pending: 0, unrolled: 0 })
      expect(await rolledBack()).toEqual(byUrl([...a, ...b]))
    })

    it("close() gives a refusing disk closeWaitMs, then rejects what waits and rolls exactly what was acknowledged", async () => {
      quiet()
      const disk = new FaultyDisk()
      const sink = await openSink({ fsyncMs: 5, disk, closeWaitMs: 300 })
      const acked = clicks(3)
      await sink.write(acked)
      const a = clicks(2)
      const b = clicks(2)
      // Torn with a's whole records on disk, then every write refused (cuts still work).
      disk.writes.push({ kind: "tear", bytes: frame(a).length }, ...Array.from({ length: 100 }, () => ({ kind: "refuse" as const })))
      const outcomes = [sink.write(a), sink.write(b)].map((w) => w.then(() => "written", (e: Error) => e.message))
      await sleep(50)
      const started = Date.now()
      await sink.close()
      sinks.splice(sinks.indexOf(sink), 1)
      expect(Date.now() - started).toBeGreaterThanOrEqual(250)
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(await Promise.all(outcomes)).toEqual(Array(2).fill("click spool closed while the disk still refused writes"))
      // The torn bytes of the attempt were cut: what was acknowledged is rolled, and nothing else.
      expect(sink.counts).toEqual({ acknowledged: 3, rolled: 3, pending: 0, unrolled: 0 })
      expect(await rolledBack()).toEqual(byUrl(acked))
      const next = await openSink()
      expect(next.counts.rolled).toBe(0)
      expect(await rolledBack()).toEqual(byUrl(acked))
    })

    it("a crash while a torn attempt is on disk: the next start keeps its whole records once, and nothing acknowledged is lost", async () => {
      quiet()
      const disk = new FaultyDisk()
      const crashed = await openSink({ fsyncMs: 5, disk, closeWaitMs: 50 })
      const acked = clicks(3)
      await crashed.write(acked)
      const a = clicks(2)
      const b = clicks(2)
      // Torn with a's whole records on disk; the cut is refused from then on, so the sink never
      // writes again: the state a crash at that moment leaves behind.
      disk.writes.push({ kind: "tear", bytes: frame(a).length })
      disk.failTruncates = Number.MAX_SAFE_INTEGER
      void crashed.write(a).catch(() => {})
      void crashed.write(b).catch(() => {})
      await vi.waitFor(() => expect(disk.calls.truncate).toBeGreaterThan(0), { timeout: 2_000, interval: 5 })
      expect(disk.calls.writev).toBe(2)
      const restarted = await openSink()
      // a's records were on disk, never acknowledged (the visits were answered): kept, once; b never reached the disk.
      expect(restarted.counts.rolled).toBe(5)
      const back = await rolledBack()
      expect(back).toEqual(byUrl([...acked, ...a]))
      expect(new Set(back.map((c) => c.url)).size).toBe(back.length)
    })

    it.skipIf(!canChattr)("a spool directory and its segment made immutable, then restored: nothing lost, nothing doubled, counts right", async () => {
      const log = quiet()
      const sink = await openSink({ fsyncMs: 5 })
      const written: Array<ClickRecord> = []
      const writes: Array<Promise<void>> = []
      let stop = false
      const feed = (async () => {
        for (let i = 0; !stop; i++) {
          const batch = clicks(1 + (i % 3))
          written.push(...batch)
          writes.push(sink.write(batch))
          if (i % 10 === 9) void sink.roll().catch(() => {})
          await sleep(5)
        }
      })()
      await sleep(300)
      dirs.freeze(spoolDir)
      await sleep(200)
      const early = { ...sink.counts }
      await sleep(600)
      const late = { ...sink.counts }
      expect(late.acknowledged).toBe(early.acknowledged)
      expect(late.pending).toBeGreaterThan(early.pending)
      dirs.thaw(spoolDir)
      await sleep(300)
      stop = true
      await feed
      await Promise.all(writes)
      await sink.roll()
      expect(sink.counts).toEqual({ acknowledged: written.length, rolled: written.length, pending: 0, unrolled: 0 })
      const back = await rolledBack()
      expect(back).toHaveLength(written.length)
      expect(back).toEqual(byUrl(written))
      expect(logged(log, "click spool: writing failed")).toBe(1)
      expect(await segments()).toHaveLength(1)
    })

    it.skipIf(!canChattr)("a clicks directory made immutable: clicks are still acknowledged, rolls leave the segments; restored, each click is rolled once", async () => {
      quiet()
      const sink = await openSink({ fsyncMs: 5 })
      const first = clicks(4)
      await sink.write(first)
      await sink.roll()
      dirs.freeze(clicksDir)
      const during: Array<ClickRecord> = []
      for (let i = 0; i < 3; i++) {
        const batch = clicks(3)
        during.push(...batch)
        await sink.write(batch)
        await expect(sink.roll()).rejects.toThrow()
      }
      expect(sink.counts).toEqual({ acknowledged: 13, rolled: 4, pending: 0, unrolled: 9 })
      expect((await segments()).length).toBeGreaterThan(1)
      dirs.thaw(clicksDir)
      await sink.roll()
      expect(sink.counts).toEqual({ acknowledged: 13, rolled: 13, pending: 0, unrolled: 0 })
      expect(await segments()).toHaveLength(1)
      expect(await rolledBack()).toEqual(byUrl([...first, ...during]))
    })

    it.skipIf(!canChattr)("an earlier run's segments that cannot be rolled yet count as unrolled, whole records only (quoted newlines too), until rolled", async () => {
      quiet()
      await mkdir(spoolDir, { recursive: true })
      await mkdir(clicksDir, { recursive: true })
      const awkward = [click({ utmSource: "line one\nline two" }), click({ utmMedium: "cr\r\nlf", utmContent: "\"" })]
      const plain = clicks(3)
      const tornLine = clickLine(click({ utmSource: "torn\nrecord" }))
      await writeFile(path.join(spoolDir, segmentName(1_700_000_000_000_021)), frame(awkward))
      await writeFile(path.join(spoolDir, segmentName(1_700_000_000_000_022)), Buffer.concat([frame(plain), Buffer.from(tornLine.slice(0, -3))]))
      dirs.freeze(clicksDir)
      const sink = await openSink()
      expect(sink.counts).toEqual({ acknowledged: 0, rolled: 0, pending: 0, unrolled: 5 })
      await sink.write(clicks(2))
      expect(sink.counts).toEqual({ acknowledged: 2, rolled: 0, pending: 0, unrolled: 7 })
      dirs.thaw(clicksDir)
      await sink.roll()
      expect(sink.counts).toEqual({ acknowledged: 2, rolled: 7, pending: 0, unrolled: 0 })
    })
  })

})

const DAY_MS = 24 * HOUR
