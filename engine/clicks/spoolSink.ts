import type { DuckDBConnection } from "@duckdb/node-api"
import { existsSync } from "node:fs"
import { mkdir, open, readdir, unlink } from "node:fs/promises"
import * as path from "node:path"
import type { ClickRecord, ClickSink } from "../../shared/clicks/click.ts"
import { encodeClicks, selectClicksCsv } from "../../shared/clicks/clickCsv.ts"
import { copyToParquet, partitionOf } from "../../shared/clicks/parquet.ts"
import { openSegmentFile, type OpenSegmentFile, type SegmentFile, writeAll } from "./segmentFile.ts"

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
  /**
   * Clicks (and bytes of them) kept in memory while the disk refuses writes; beyond either
   * bound, new clicks are refused (the collector counts them dropped).
   */
  readonly maxPendingClicks?: number
  readonly maxPendingBytes?: number
  /** How long close() waits for a refusing disk to take what is pending before giving it up. */
  readonly closeWaitMs?: number
  /**
   * Why new clicks cannot be taken now, if they cannot (the click bucket's outbox at its budget):
   * write() then refuses them as when the memory buffer is full.
   */
  readonly refuse?: () => string | undefined
  /** Called after each roll, with the Parquet files it wrote in place (the uploader sends them). */
  readonly onRolled?: () => void
}

export const DEFAULT_MAX_PENDING_CLICKS = 200_000
export const DEFAULT_MAX_PENDING_BYTES = 128 * 1024 * 1024
const CLOSE_WAIT_MS = 5_000
/** Retries of a refused write: 100 ms, doubling up to 5 s. */
const FIRST_RETRY_MS = 100
const MAX_RETRY_MS = 5_000

export interface SegmentJob {
  readonly file: string
  readonly seq: number
  readonly clicksDir: string
  readonly engineId: string
  /**
   * The hour (epoch ms // HOUR_MS) every record of the segment falls in, when the sink that wrote
   * them knows it (not for a segment left by an earlier run).
   */
  readonly hour?: number
}

const HOUR_MS = 3_600_000
const hourOf = (timestamp: number) => Math.floor(timestamp / HOUR_MS)

/** The segment's Parquet file for one hour it covers. */
const hourFile = (job: SegmentJob, hour: number) => path.join(job.clicksDir, partitionOf(hour * HOUR_MS).dir, `${job.engineId}-${job.seq}.parquet`)

/**
 * One sealed segment into Parquet files, one per hour it covers, then the segment is deleted.
 * DuckDB reads the segment's CSV itself. The file names derive from the segment, so a conversion
 * interrupted by a crash completes on the next start without duplicating what it had written.
 */
export const convertSegment = async (duck: DuckDBConnection, job: SegmentJob): Promise<number> => {
  await dropTornRecord(job.file)
  const direct = job.hour === undefined ? undefined : await convertWithinHour(duck, job, job.hour)
  if (direct !== undefined) {
    await unlink(job.file)
    return direct
  }
  const table = `spool_segment_${job.seq}`
  let count = 0
  try {
    await loadSegment(duck, job.file, table)
    const hours = await duck.runAndReadAll(`SELECT epoch_ms(timestamp) // ${HOUR_MS} AS hour, count(*) AS clicks FROM ${table} GROUP BY hour ORDER BY hour`)
    for (const [hour, clicks] of hours.getRows()) {
      count += Number(clicks)
      const target = hourFile(job, Number(hour))
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
 * A segment whose records all fall in one hour (a segment rolled every few seconds nearly always
 * does) goes to its Parquet file in one COPY straight from the CSV: no staging table and no scan
 * per hour, about a third less DuckDB work a click, on cores the redirects share. Undefined when
 * it cannot: the file is there already, or a record does not parse (the general path then keeps
 * the ones that do, and says so; a disk that refuses the file refuses that path too, which reports it).
 */
const convertWithinHour = async (duck: DuckDBConnection, job: SegmentJob, hour: number): Promise<number | undefined> => {
  const target = hourFile(job, hour)
  if (existsSync(target)) return undefined
  try {
    return (await copyToParquet(duck, selectClicksCsv(job.file), target)).rowsChanged
  } catch {
    return undefined
  }
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

const QUOTE = 0x22
const NEWLINE = 0x0a

/**
 * The whole records of a segment: CSV lines, whose quoted values may hold newlines (a doubled
 * quote inside one toggles twice). A torn last record, without its closing newline, is not a click.
 */
const countRecords = async (file: string): Promise<number> => {
  let records = 0
  let quoted = false
  const handle = await open(file, "r")
  try {
    for await (const chunk of handle.createReadStream({ highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i]
        if (byte === QUOTE) quoted = !quoted
        else if (byte === NEWLINE && !quoted) records++
      }
    }
  } finally {
    await handle.close()
  }
  return records
}

const segmentName = (seq: number) => `${String(seq).padStart(16, "0")}.csv`
const SEGMENT = /^(\d{16})\.csv$/

/**
 * write() refused a batch: the clicks waiting for the disk are at their bound, or (`what`) the
 * files waiting for the click bucket are.
 */
export class SpoolFullError extends Error {
  constructor(detail: string, what = "click spool buffer is full") {
    super(`${what} (${detail})`)
    this.name = "SpoolFullError"
  }
}

/** The first and last hour (epoch ms // HOUR_MS) of some clicks. */
interface Hours {
  readonly first: number
  readonly last: number
}

const hoursOf = (clicks: ReadonlyArray<ClickRecord>): Hours => {
  let first = Number.POSITIVE_INFINITY
  let last = Number.NEGATIVE_INFINITY
  for (const click of clicks) {
    const hour = hourOf(click.timestamp)
    if (hour < first) first = hour
    if (hour > last) last = hour
  }
  return { first, last }
}

const spanning = (a: Hours | undefined, b: Hours): Hours => (a === undefined ? b : { first: Math.min(a.first, b.first), last: Math.max(a.last, b.last) })

interface Batch {
  readonly bytes: Buffer
  readonly clicks: number
  readonly hours: Hours
  readonly done: Promise<void>
  readonly resolve: () => void
  readonly reject: (error: unknown) => void
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * The durable click sink. Batches are appended to a spool segment and acknowledged once fsynced
 * (one fsync per `fsyncMs` for all batches written meanwhile). Every `rollMs` the segment is
 * sealed and turned into Parquet files, one per hour it covers, named
 * `{clicksDir}/date=…/hour=…/{engineId}-{seq}.parquet`; the segment is deleted only after they
 * are all in place. A segment left by a crash is rolled at the next start; because the file
 * names derive from the segment, a roll interrupted half-way completes without duplicating.
 *
 * Disk faults: a write or fsync that fails keeps its batches pending, in order, and is retried
 * with backoff until the disk takes them; the sink never stops by itself. Bytes a failed attempt
 * may have left past the last fsynced size are cut off (truncate, fsync) before anything is
 * written again, so a retried batch is on disk once, never beside a part of itself. What waits is
 * bounded (`maxPendingClicks`, `maxPendingBytes`); beyond it write() refuses. A roll that cannot
 * start a new segment keeps writing to the current one; a conversion that fails leaves its
 * segments in the spool for the next roll.
 */
export class SpoolSink implements ClickSink {
  private file!: SegmentFile
  private seq = 0
  /** Bytes of the current segment known to be on disk (fsynced). */
  private goodSize = 0
  /** The hours of the clicks on disk in each segment written since open, the current one included, by seq. */
  private readonly segmentHours = new Map<number, Hours>()
  /** A failed attempt may have left bytes past goodSize: cut them before writing again. */
  private damaged = false
  /** Batches not yet acknowledged, in order; the head may be being written. */
  private queue: Array<Batch> = []
  private pendingBytes = 0
  /** Every operation on the segment file, one at a time. */
  private io: Promise<void> = Promise.resolve()
  private rolling: Promise<void> = Promise.resolve()
  /** The next commit: after `fsyncMs` normally, after the backoff while the disk refuses. */
  private commitTimer: NodeJS.Timeout | undefined
  private rollTimer: NodeJS.Timeout | undefined
  private retryMs = 0
  private failingSince: number | undefined
  private rollFailing = false
  private closed = false
  private readonly maxPendingClicks: number
  private readonly maxPendingBytes: number
  /**
   * Clicks fsynced to the spool (acknowledged) and clicks in Parquet, since start; clicks waiting
   * in memory for the disk (not yet acknowledged); clicks on disk in the spool not yet rolled into
   * Parquet (acknowledged ones, and those an earlier run left).
   */
  readonly counts = { acknowledged: 0, rolled: 0, pending: 0, unrolled: 0 }
  /** Clicks on disk in each segment still in the spool, by seq: what its roll takes out of `unrolled`. */
  private readonly segmentClicks = new Map<number, number>()

  private constructor(private readonly options: SpoolOptions, private readonly openFile: OpenSegmentFile) {
    this.maxPendingClicks = options.maxPendingClicks ?? DEFAULT_MAX_PENDING_CLICKS
    this.maxPendingBytes = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES
  }

  /** `openFile` is the file-operations seam for tests; production uses node:fs. */
  static async open(options: SpoolOptions, openFile: OpenSegmentFile = openSegmentFile): Promise<SpoolSink> {
    const sink = new SpoolSink(options, openFile)
    await mkdir(options.spoolDir, { recursive: true })
    await mkdir(options.clicksDir, { recursive: true })
    const leftovers = (await readdir(options.spoolDir)).filter((name) => SEGMENT.test(name)).sort()
    const last = leftovers.length === 0 ? 0 : Number(SEGMENT.exec(leftovers[leftovers.length - 1])![1])
    sink.seq = Math.max(last, Date.now() * 1000) + 1
    for (const name of leftovers) {
      const records = await countRecords(path.join(options.spoolDir, name))
      sink.segmentClicks.set(Number(SEGMENT.exec(name)![1]), records)
      sink.counts.unrolled += records
    }
    sink.file = await openFile(path.join(options.spoolDir, segmentName(sink.seq)))
    // A clicks directory that cannot be written now does not stop the engine: the leftovers stay
    // in the spool and every roll tries them again, oldest first.
    if (leftovers.length > 0) {
      console.log(`engine: recovering ${leftovers.length} spool segment(s) an earlier run left in ${options.spoolDir} (acknowledged clicks, written to Parquet now)`)
    }
    await sink.convertSealed().catch((error) => sink.rollFailed(error))
    sink.rollTimer = setInterval(() => void sink.rollOnTimer(), options.rollMs)
    sink.rollTimer.unref()
    return sink
  }

  /** Resolves once these clicks are on disk in the spool; rejects (SpoolFullError) when they cannot wait for it. */
  write(clicks: ReadonlyArray<ClickRecord>): Promise<void> {
    if (clicks.length === 0) return Promise.resolve()
    if (this.closed) return Promise.reject(new Error("click sink is closed"))
    const refusal = this.options.refuse?.()
    if (refusal !== undefined) return Promise.reject(new SpoolFullError(refusal, "click outbox is full"))
    // A batch is taken whenever nothing waits, whatever its size: a bound below one batch must
    // not refuse clicks the disk would take at once.
    const waiting = this.queue.length > 0
    if (waiting && this.counts.pending + clicks.length > this.maxPendingClicks) {
      return Promise.reject(new SpoolFullError(`${this.counts.pending} clicks waiting for the disk, at most ${this.maxPendingClicks}`))
    }
    const bytes = encodeClicks(clicks)
    if (waiting && this.pendingBytes + bytes.length > this.maxPendingBytes) {
      return Promise.reject(new SpoolFullError(`${this.pendingBytes} bytes waiting for the disk, at most ${this.maxPendingBytes}`))
    }
    let resolve!: () => void
    let reject!: (error: unknown) => void
    const done = new Promise<void>((res, rej) => {
      resolve = res
      reject = rej
    })
    this.queue.push({ bytes, clicks: clicks.length, hours: hoursOf(clicks), done, resolve, reject })
    this.counts.pending += clicks.length
    this.pendingBytes += bytes.length
    this.commitTimer ??= setTimeout(() => void this.commit(), this.options.fsyncMs)
    return done
  }

  /** One file operation after the ones before it. */
  private serially<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.io.then(operation)
    this.io = result.then(() => {}, () => {})
    return result
  }

  /** Writes everything pending and fsyncs once; on failure everything stays pending and a retry is due. */
  private commit(): Promise<void> {
    if (this.commitTimer !== undefined) clearTimeout(this.commitTimer)
    this.commitTimer = undefined
    return this.serially(async () => {
      const group = this.queue.length
      if (group === 0) return
      const batches = this.queue.slice(0, group)
      try {
        if (this.damaged) await this.repair()
        this.damaged = true
        await writeAll(this.file, batches.map((batch) => batch.bytes))
        await this.file.datasync()
        this.damaged = false
      } catch (error) {
        this.failed(error)
        return
      }
      this.queue = this.queue.slice(group)
      let clicks = 0
      let bytes = 0
      for (const batch of batches) {
        clicks += batch.clicks
        bytes += batch.bytes.length
        this.segmentHours.set(this.seq, spanning(this.segmentHours.get(this.seq), batch.hours))
      }
      this.goodSize += bytes
      this.pendingBytes -= bytes
      this.counts.pending -= clicks
      this.counts.acknowledged += clicks
      this.counts.unrolled += clicks
      this.segmentClicks.set(this.seq, (this.segmentClicks.get(this.seq) ?? 0) + clicks)
      for (const batch of batches) batch.resolve()
      this.recovered()
    })
  }

  /** Cuts what a failed attempt may have left after the last fsynced byte, durably. */
  private async repair() {
    await this.file.truncate(this.goodSize)
    await this.file.datasync()
    this.damaged = false
  }

  private failed(error: unknown) {
    this.retryMs = this.retryMs === 0 ? FIRST_RETRY_MS : Math.min(this.retryMs * 2, MAX_RETRY_MS)
    if (this.failingSince === undefined) {
      this.failingSince = Date.now()
      console.error(
        `click spool: writing failed (${messageOf(error)}); keeping up to ${this.maxPendingClicks} clicks in memory and retrying until the disk takes them`
      )
    }
    if (this.commitTimer !== undefined) clearTimeout(this.commitTimer)
    // Once closing, close() does its own (bounded) retries.
    this.commitTimer = this.closed ? undefined : setTimeout(() => void this.commit(), this.retryMs)
  }

  private recovered() {
    if (this.failingSince === undefined) return
    console.error(`click spool: writing again after ${((Date.now() - this.failingSince) / 1000).toFixed(1)} s`)
    this.failingSince = undefined
    this.retryMs = 0
  }

  /** Seals the current segment, starts a new one, and turns every sealed one into Parquet. */
  roll(): Promise<void> {
    // A failed roll must not stop later ones: its segments stay on disk and are retried below.
    this.rolling = this.rolling.catch(() => {}).then(async () => {
      let sealError: unknown
      await this.serially(() => this.seal()).catch((error) => (sealError = error))
      await this.convertSealed()
      if (sealError !== undefined) throw sealError
    })
    return this.rolling
  }

  private async rollOnTimer() {
    try {
      await this.roll()
      if (this.rollFailing) console.error("click roll: working again")
      this.rollFailing = false
    } catch (error) {
      this.rollFailed(error)
    }
  }

  /** Logged once while rolls keep failing (every roll retries), not once a roll. */
  private rollFailed(error: unknown) {
    if (this.rollFailing) return
    this.rollFailing = true
    console.error("click roll failed; the spool keeps the clicks and every roll tries again", error)
  }

  /**
   * Starts a new segment, after what was acknowledged in the current one. The new one is opened
   * before the current one is closed: if it cannot be (a spool directory that takes no new
   * files), writing goes on in the current segment.
   */
  private async seal() {
    if (this.damaged) {
      // Sealed, its torn tail would be rolled; the commit path reports the failure and retries.
      const repaired = await this.repair().then(() => true, () => false)
      if (!repaired) return
    }
    if (this.goodSize === 0) return
    const seq = this.seq + 1
    const next = await this.openFile(path.join(this.options.spoolDir, segmentName(seq)))
    const sealed = this.file
    this.file = next
    this.seq = seq
    this.goodSize = 0
    // Its bytes were fsynced: a failed close loses nothing.
    await sealed.close().catch((error) => console.error("click spool: closing a sealed segment failed", error))
  }

  /** Every sealed segment (all but the active one), oldest first, including any a failed roll left. */
  private async convertSealed() {
    const sealed = (await readdir(this.options.spoolDir))
      .filter((name) => {
        const seq = SEGMENT.exec(name)?.[1]
        return seq !== undefined && Number(seq) < this.seq
      })
      .sort()
    try {
      for (const name of sealed) await this.convert(name)
    } finally {
      if (sealed.length > 0) this.options.onRolled?.()
    }
  }

  private async convert(name: string) {
    const seq = Number(SEGMENT.exec(name)![1])
    const hours = this.segmentHours.get(seq)
    const job = {
      file: path.join(this.options.spoolDir, name),
      seq,
      clicksDir: this.options.clicksDir,
      engineId: this.options.engineId,
      hour: hours !== undefined && hours.first === hours.last ? hours.first : undefined
    }
    this.counts.rolled += await convertSegment(this.options.duck, job)
    this.segmentHours.delete(seq)
    this.counts.unrolled -= this.segmentClicks.get(seq) ?? 0
    this.segmentClicks.delete(seq)
  }

  /** Everything written so far is fsynced and rolled into Parquet (waits while the disk refuses). */
  async flush(): Promise<void> {
    const last = this.queue.at(-1)
    await this.commit()
    await last?.done
    await this.roll()
  }

  /**
   * Writes and rolls what is pending, then closes. A disk still refusing after `closeWaitMs`
   * is given up on: the batches waiting for it are rejected (the collector counts them dropped).
   */
  async close(): Promise<void> {
    if (this.rollTimer !== undefined) clearInterval(this.rollTimer)
    this.closed = true
    const deadline = Date.now() + (this.options.closeWaitMs ?? CLOSE_WAIT_MS)
    await this.commit()
    while (this.queue.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.retryMs || this.options.fsyncMs, deadline - Date.now())))
      await this.commit()
    }
    if (this.commitTimer !== undefined) clearTimeout(this.commitTimer)
    this.commitTimer = undefined
    const abandoned = this.queue
    this.queue = []
    this.counts.pending = 0
    this.pendingBytes = 0
    if (abandoned.length > 0) {
      const error = new Error("click spool closed while the disk still refused writes")
      for (const batch of abandoned) batch.reject(error)
    }
    await this.roll().catch((error) => console.error("click roll at close failed; the spool keeps the clicks for the next start", error))
    await this.serially(async () => {
      // Bytes of an abandoned attempt must not be rolled at the next start as if written.
      if (this.damaged) await this.repair().catch(() => {})
      await this.file.close().catch(() => {})
      // Everything was rolled: the fresh segment a roll opens is left empty, and need not outlive us.
      if (this.goodSize === 0 && !this.damaged) await unlink(path.join(this.options.spoolDir, segmentName(this.seq))).catch(() => {})
    })
  }
}
