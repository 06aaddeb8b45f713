import { randomBytes } from "node:crypto"
import { readdir } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bucketPublisher } from "../../control/analytics/bucketPublisher.ts"
import { startMirror, type RunningMirror } from "../../control/analytics/ClickMirrorJob.ts"
import { compactClicks } from "../../control/analytics/compaction.ts"
import { sweepDeletions } from "../../control/analytics/deletionSweep.ts"
import { SegmentUploader } from "../../engine/clicks/segmentUploader.ts"
import { type ClickBucketConnection, clickBucketConnection } from "../../shared/clicks/clickBucket.ts"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { listClickFiles } from "../../shared/clicks/files.ts"
import { openDuckDb, quote } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "../support/clickRecord.ts"
import { eventually, freePort, removeDir, tempDir } from "../support/processes.ts"

/**
 * The click bucket transport between engines and controls (#25) on the local NATS: engine files
 * sent by the uploader, mirrored into two control directories, compacted on one of them through
 * the bucket while the other is queried without pause (every click exactly once, before, during
 * and after the switch), and a third mirror started afterwards catching up from the bucket alone.
 */
const NATS_URL = process.env.RICOCHET_TEST_NATS ?? "nats://127.0.0.1:4222"
const DAYS = 3
const HOURS_PER_DAY = 2
const FILES_PER_HOUR = 2
const CLICKS_PER_FILE = 25
const TOTAL = DAYS * HOURS_PER_DAY * FILES_PER_HOUR * CLICKS_PER_FILE
const DAY_MS = 86_400_000

/** Every file under `dir`, relative, without temporary ones. */
const filesUnder = async (dir: string): Promise<Array<string>> =>
  (await readdir(dir, { recursive: true }).catch(() => [] as Array<string>))
    .filter((name) => /\.(parquet|json)$/.test(name))
    .sort()

describe("clicks through a JetStream object store", () => {
  const bucket = `clicks-test-${randomBytes(4).toString("hex")}`
  let root: string
  let connection: ClickBucketConnection
  let duck: Awaited<ReturnType<typeof openDuckDb>>
  const mirrors: Array<RunningMirror> = []

  /** The clicks a query over `dir` counts now (as the analytics API lists its files). */
  const countIn = async (dir: string): Promise<number> => {
    const files = await listClickFiles(dir, 0, Date.now())
    if (files.length === 0) return 0
    const reader = await duck.runAndReadAll(`SELECT count(*) AS n FROM read_parquet([${files.map(quote).join(", ")}], hive_partitioning = false)`)
    return Number(reader.getRowObjects()[0]!.n)
  }

  beforeAll(async () => {
    root = await tempDir()
    duck = await openDuckDb(1)
    connection = clickBucketConnection({ natsUrl: NATS_URL, bucket, replicas: 1 }, "click bucket test")
    let n = 0
    for (let d = 0; d < DAYS; d++) {
      const day = new Date(Date.now() - (2 + d) * DAY_MS).toISOString().slice(0, 10)
      for (let h = 0; h < HOURS_PER_DAY; h++) {
        const hour = String(h * 7).padStart(2, "0")
        for (let f = 0; f < FILES_PER_HOUR; f++) {
          const base = Date.parse(`${day}T${hour}:00:00Z`)
          const clicks = Array.from({ length: CLICKS_PER_FILE }, (_, i) =>
            clickRecord({ timestamp: base + f * 60_000 + i * 1000, workspaceId: "ws_bucket", linkId: `lnk_${f}`, visitorHash: `v${n++}` }))
          await writeClicksParquet(duck, clicks, path.join(root, "outbox", `date=${day}`, `hour=${hour}`, `edge-${f}-${1000 + h}.parquet`))
        }
      }
    }
  }, 60_000)

  afterAll(async () => {
    for (const mirror of mirrors) await mirror.stop()
    await connection?.bucket().then((store) => store.destroy()).catch(() => {})
    await connection?.close()
    duck?.closeSync()
    if (root) await removeDir(root)
  })

  it("sends an engine's files, deleting each once the bucket has it", async () => {
    const outbox = path.join(root, "outbox")
    const files = (await filesUnder(outbox)).length
    expect(files).toBe(DAYS * HOURS_PER_DAY * FILES_PER_HOUR)
    const uploader = SegmentUploader.start({ outboxDir: outbox, connection, budgetBytes: 1 << 30, scanMs: 100 })
    try {
      await eventually(async () => (await filesUnder(outbox)).length === 0, 30_000, 100)
      expect(uploader.counts).toMatchObject({ files: 0, bytes: 0, uploaded: files })
    } finally {
      await uploader.close()
    }
    const objects = await (await connection.bucket()).list()
    expect(objects).toHaveLength(files)
    expect(objects.every((o) => /^date=\d{4}-\d{2}-\d{2}\/hour=\d{2}\/edge-\d-\d+\.parquet$/.test(o.name))).toBe(true)
  })

  it("keeps files waiting while NATS cannot be reached, and says when they are at the budget", async () => {
    const outbox = path.join(root, "stranded")
    await writeClicksParquet(duck, [clickRecord({ timestamp: Date.now() })], path.join(outbox, "date=2026-01-01", "hour=00", "edge-9-1.parquet"))
    const away = clickBucketConnection({ natsUrl: `nats://127.0.0.1:${await freePort()}`, bucket, replicas: 1 }, "click bucket test (no server)")
    const uploader = SegmentUploader.start({ outboxDir: outbox, connection: away, budgetBytes: 10, scanMs: 50 })
    try {
      await eventually(async () => uploader.counts.files === 1, 10_000, 50)
      expect(uploader.counts.bytes).toBeGreaterThan(10)
      expect(uploader.full()).toMatch(/1 click files .* wait for the click bucket/)
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      expect(await filesUnder(outbox)).toHaveLength(1)
      expect(uploader.counts.uploaded).toBe(0)
    } finally {
      await uploader.close()
      await away.close()
    }
  })

  it("mirrors the bucket into two directories", async () => {
    for (const name of ["control-a", "control-b"]) mirrors.push(startMirror(connection, path.join(root, name)))
    for (const name of ["control-a", "control-b"]) {
      await eventually(async () => (await countIn(path.join(root, name))) === TOTAL, 30_000, 100)
    }
    expect(await filesUnder(path.join(root, "control-b"))).toEqual(await filesUnder(path.join(root, "control-a")))
  })

  it("follows compaction on another control with every click counted once throughout", async () => {
    const a = path.join(root, "control-a")
    const b = path.join(root, "control-b")
    const seen: Array<number> = []
    let reading = true
    const reader = (async () => {
      while (reading) {
        // A file removed while a query reads it fails that query (as with the grace period at 0 here); not a count.
        const count = await countIn(b).catch(() => undefined)
        if (count !== undefined) seen.push(count)
      }
    })()
    try {
      const store = await connection.bucket()
      const publisher = bucketPublisher(store, a)
      const run = (sql: string) => duck.run(sql).then(() => {})
      const first = await compactClicks(a, run, Date.now(), { settleMs: 0, graceMs: 0, publisher })
      expect(first.merged).toBe(DAYS)
      // The next pass removes the replaced files: from the bucket first.
      await new Promise((resolve) => setTimeout(resolve, 50))
      const second = await compactClicks(a, run, Date.now(), { settleMs: 0, graceMs: 0, publisher })
      expect(second.removed).toBeGreaterThanOrEqual(DAYS * HOURS_PER_DAY * FILES_PER_HOUR)
      const compacted = await filesUnder(a)
      expect(compacted.some((name) => name.includes("edge-"))).toBe(false)
      await eventually(async () => JSON.stringify(await filesUnder(b)) === JSON.stringify(compacted), 30_000, 100)
      expect((await store.list()).map((o) => o.name).sort()).toEqual(compacted.map((name) => name.split(path.sep).join("/")).sort())
    } finally {
      reading = false
      await reader
    }
    expect(seen.length).toBeGreaterThan(5)
    expect(seen.filter((count) => count !== TOTAL)).toEqual([])
    expect(await countIn(a)).toBe(TOTAL)
  }, 60_000)

  it("purges the markers of deleted objects once old enough, and only those", async () => {
    const store = await connection.bucket()
    const history = async () => {
      const seen: Array<{ name: string; deleted: boolean }> = []
      const watch = await store.watch({ includeHistory: true })
      for await (const info of watch) {
        if (info === null) break
        seen.push({ name: info.name, deleted: info.deleted })
      }
      watch.stop()
      return seen
    }
    const before = await history()
    const markers = before.filter((o) => o.deleted).length
    expect(markers).toBeGreaterThanOrEqual(DAYS * HOURS_PER_DAY * FILES_PER_HOUR)
    // Not old enough: kept.
    expect(await sweepDeletions(store, await connection.manager(), bucket, 3_600_000, Date.now())).toBe(0)
    expect(await sweepDeletions(store, await connection.manager(), bucket, 0, Date.now())).toBe(markers)
    const after = await history()
    expect(after.filter((o) => o.deleted)).toEqual([])
    expect(after.map((o) => o.name).sort()).toEqual(before.filter((o) => !o.deleted).map((o) => o.name).sort())
  })

  it("brings a mirror started afterwards to the same files from the bucket alone", async () => {
    const c = path.join(root, "control-c")
    mirrors.push(startMirror(connection, c))
    const expected = await filesUnder(path.join(root, "control-a"))
    await eventually(async () => JSON.stringify(await filesUnder(c)) === JSON.stringify(expected), 30_000, 100)
    expect(await countIn(c)).toBe(TOTAL)
  })
})
