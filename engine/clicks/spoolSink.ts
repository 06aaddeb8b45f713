import type { DuckDBConnection } from "@duckdb/node-api"
import { existsSync } from "node:fs"
import { type FileHandle, mkdir, open, readdir, unlink } from "node:fs/promises"
import * as path from "node:path"
import type { ClickRecord, ClickSink } from "../../shared/clicks/click.ts"
import { encodeClicks, selectClicksCsv } from "../../shared/clicks/clickCsv.ts"
import { copyToParquet, partitionOf } from "../../shared/clicks/parquet.ts"
import { convertLegacySegment, LEGACY_SEGMENT_SUFFIX } from "./legacySpool.ts"

export interface SpoolOptions {
  readonly spoolDir: string
  readonly clicksDir: string
  /** Names this engine's files; engines sharing a clicks directory need distinct ids. */
  readonly engineId: string
  /** Group commit: at most one fsync per this many milliseconds. */
  readonly fsyncMs: number
  /** How often the spool is rolled into Parquet. */
  readonly rollMs: number
  /** Turns sealed segments into Parquet (its queries run on DuckDB's threads, not this one). */
  readonly duck: DuckDBConnection
}

export interface SegmentJob {
  readonly file: string
  readonly seq: number
  readonly clicksDir: string
  readonly engineId: string
}

const HOUR_MS = 3_600_000

/**
 * One sealed segment into Parquet files, one per hour it covers, then the segment is deleted.
 * DuckDB reads the segment's CSV itself. The file names derive from the segment, so a conversion
 * interrupted by a crash completes on the next start without duplicating what it had written.
 */
export const convertSegment = async (duck: DuckDBConnection, job: SegmentJob): Promise<number> => {
  if (job.file.endsWith(LEGACY_SEGMENT_SUFFIX)) return convertLegacySegment(duck, job)
  await dropTornRecord(job.file)
  const table = `spool_segment_${job.seq}`
  let count = 0
  try {
    await loadSegment(duck, job.file, table)
    const hours = await duck.runAndReadAll(`SELECT epoch_ms(timestamp) // ${HOUR_MS} AS hour, count(*) AS clicks FROM ${table} GROUP BY hour ORDER BY hour`)
    for (const [hour, clicks] of hours.getRows()) {
      count += Number(clicks)
      const target = path.join(job.clicksDir, partitionOf(Number(hour) * HOUR_MS).dir, `${job.engineId}-${job.seq}.parquet`)
      if (existsSync(target)) continue
      await copyToParquet(duck, `SELECT * FROM ${table} WHERE epoch_ms(timestamp) // ${HOUR_MS} = ${hour}`, target)
    }
  } finally {
    await duck.run(`DROP TABLE IF EXISTS ${table}`)
  }
  await unlink(job.file)
  return count
}

/**
 * A segment's clicks into a temporary DuckDB table. Records are whole lines and acknowledged ones
 * were fsynced, so only the unacknowledged tail of a crash can be damaged and dropTornRecord cut
 * it; should anything else not parse, the records that do are kept rather than blocking every
 * later segment behind this one, and the log says so.
 */
const loadSegment = async (duck: DuckDBConnection, file: string, table: string): Promise<void> => {
  try {
    await duck.run(`CREATE OR REPLACE TEMP TABLE ${table} AS ${selectClicksCsv(file)}`)
  } catch (error) {
    console.error(`spool segment ${file} has records that do not parse; keeping the ones that do`, error)
    await duck.run(`CREATE OR REPLACE TEMP TABLE ${table} AS ${selectClicksCsv(file, { lenient: true })}`)
  }
}

/** Cuts a segment after its last newline: a batch torn by a crash ends without one. */
const dropTornRecord = async (file: string): Promise<void> => {
  const handle = await open(file, "r+")
  try {
    const { size } = await handle.stat()
    const chunk = Buffer.allocUnsafe(64 * 1024)
    let end = size
    while (end > 0) {
      const start = Math.max(0, end - chunk.length)
      const { bytesRead } = await handle.read(chunk, 0, end - start, start)
      const newline = chunk.subarray(0, bytesRead).lastIndexOf(10)
      if (newline >= 0) {
        if (start + newline + 1 < size) await handle.truncate(start + newline + 1)
        return
      }
      end = start
    }
    if (size > 0) await handle.truncate(0)
  } finally {
    await handle.close()
  }
}

const segmentName = (seq: number) => `${String(seq).padStart(16, "0")}.csv`
/** A segment, current or from an earlier version (msgpack frames, see legacySpool.ts). */
const SEGMENT = /^(\d{16})\.(csv|spool)$/

/**
 * The durable click sink. Batches are appended to a spool segment and acknowledged once fsynced
 * (one fsync per `fsyncMs` for all batches written meanwhile). Every `rollMs` the segment is
 * sealed and turned into Parquet files, one per hour it covers, named
 * `{clicksDir}/date=…/hour=…/{engineId}-{seq}.parquet`; the segment is deleted only after they
 * are all in place. A segment left by a crash is rolled at the next start; because the file
 * names derive from the segment, a roll interrupted half-way completes without duplicating.
 */
export class SpoolSink implements ClickSink {
  private handle!: FileHandle
  private seq = 0
  private pending: Array<Buffer> = []
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = []
  private committing: Promise<void> = Promise.resolve()
  private rolling: Promise<void> = Promise.resolve()
  private commitTimer: NodeJS.Timeout | undefined
  private rollTimer: NodeJS.Timeout | undefined
  private closed = false
  /** Clicks fsynced to the spool (acknowledged) and clicks in Parquet, since start. */
  readonly counts = { acknowledged: 0, rolled: 0 }

  private constructor(private readonly options: SpoolOptions) {}

  static async open(options: SpoolOptions): Promise<SpoolSink> {
    const sink = new SpoolSink(options)
    await mkdir(options.spoolDir, { recursive: true })
    await mkdir(options.clicksDir, { recursive: true })
    const leftovers = (await readdir(options.spoolDir)).filter((name) => SEGMENT.test(name)).sort()
    for (const name of leftovers) await sink.convert(name)
    const last = leftovers.length === 0 ? 0 : Number(SEGMENT.exec(leftovers[leftovers.length - 1])![1])
    sink.seq = Math.max(last, Date.now() * 1000)
    await sink.openSegment()
    sink.rollTimer = setInterval(() => void sink.roll().catch((e) => console.error("click roll failed", e)), options.rollMs)
    sink.rollTimer.unref()
    return sink
  }

  private async openSegment() {
    this.seq++
    this.handle = await open(path.join(this.options.spoolDir, segmentName(this.seq)), "a")
  }

  /** Resolves once these clicks are on disk in the spool. */
  write(clicks: ReadonlyArray<ClickRecord>): Promise<void> {
    if (clicks.length === 0) return Promise.resolve()
    if (this.closed) return Promise.reject(new Error("click sink is closed"))
    this.pending.push(encodeClicks(clicks))
    this.pendingClicks += clicks.length
    const acknowledged = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }))
    this.commitTimer ??= setTimeout(() => void this.commit(), this.options.fsyncMs)
    return acknowledged
  }

  private pendingClicks = 0

  /** Writes everything pending and fsyncs once; resolves every writer waiting on it. */
  private commit(): Promise<void> {
    this.committing = this.committing.then(async () => {
      if (this.commitTimer !== undefined) clearTimeout(this.commitTimer)
      this.commitTimer = undefined
      const buffers = this.pending
      const waiters = this.waiters
      const count = this.pendingClicks
      this.pending = []
      this.waiters = []
      this.pendingClicks = 0
      if (buffers.length === 0) return
      try {
        await this.handle.writev(buffers)
        await this.handle.datasync()
        this.counts.acknowledged += count
        for (const waiter of waiters) waiter.resolve()
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error)
      }
    })
    return this.committing
  }

  /** Seals the current segment, starts a new one, and turns the sealed one into Parquet. */
  roll(): Promise<void> {
    // A failed roll must not stop later ones: its segment stays on disk and is retried below.
    this.rolling = this.rolling.catch(() => {}).then(async () => {
      await this.commit()
      const { size } = await this.handle.stat()
      if (size === 0) return this.convertSealed()
      // Part of the commit chain: a commit that starts meanwhile waits for the new segment
      // instead of writing to the handle being closed (and failing its writers).
      const switched = this.committing.then(async () => {
        await this.handle.close()
        await this.openSegment()
      })
      this.committing = switched.catch(() => {})
      await switched
      await this.convertSealed()
    })
    return this.rolling
  }

  /** Every sealed segment (all but the active one), oldest first, including any a failed roll left. */
  private async convertSealed() {
    const sealed = (await readdir(this.options.spoolDir))
      .filter((name) => {
        const seq = SEGMENT.exec(name)?.[1]
        return seq !== undefined && Number(seq) < this.seq
      })
      .sort()
    for (const name of sealed) await this.convert(name)
  }

  private async convert(name: string) {
    const seq = Number(SEGMENT.exec(name)![1])
    const job = { file: path.join(this.options.spoolDir, name), seq, clicksDir: this.options.clicksDir, engineId: this.options.engineId }
    this.counts.rolled += await convertSegment(this.options.duck, job)
  }

  /** Everything written so far is fsynced and rolled into Parquet. */
  async flush(): Promise<void> {
    await this.commit()
    await this.roll()
  }

  async close(): Promise<void> {
    if (this.rollTimer !== undefined) clearInterval(this.rollTimer)
    await this.flush()
    this.closed = true
    const { size } = await this.handle.stat()
    await this.handle.close()
    // Everything was rolled: the fresh segment a roll opens is left empty, and need not outlive us.
    if (size === 0) await unlink(path.join(this.options.spoolDir, segmentName(this.seq))).catch(() => {})
  }
}
