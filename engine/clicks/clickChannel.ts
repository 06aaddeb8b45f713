import { Worker } from "node:worker_threads"
import type { RawClick } from "../../shared/clicks/click.ts"
import { workerEntry } from "../../shared/build/modulePaths.ts"
import { type ClickCounts, type RawClickColumns, ToMain, type ToWriter } from "../../shared/clicks/writerMessages.ts"
import { receiver } from "../../shared/messages/receiver.ts"
import { ClickBatchBuilder } from "./clickBatchBuilder.ts"
import type { ClickWriterOptions } from "./clickWriterProtocol.ts"

/** Where the redirect path puts the clicks it counts. */
export interface ClickIntake {
  readonly add: (click: RawClick) => void
}

const BATCH = 256
const INTERVAL_MS = 50
/** Clicks handed over and not yet seen by the writer: beyond this, new clicks are dropped (counted), not queued without bound. */
const MAX_BACKLOG = 200_000
const RESTART_MS = 1_000
const CLOSE_TIMEOUT_MS = 10_000

const ZERO: ClickCounts = { clicks: { people: 0, agent: 0, bot: 0 }, sink: { acknowledged: 0, rolled: 0, pending: 0, unrolled: 0 }, outbox: { files: 0, bytes: 0, uploaded: 0 }, dropped: 0 }
/**
 * Totals over writers; `pending`, `unrolled` and the outbox's files and bytes are the latest
 * writer's alone (a writer that ended waits for nothing, and its restarted successor counts the
 * segments and files it left).
 */
const add = (a: ClickCounts, b: ClickCounts): ClickCounts => ({
  clicks: { people: a.clicks.people + b.clicks.people, agent: a.clicks.agent + b.clicks.agent, bot: a.clicks.bot + b.clicks.bot },
  sink: { acknowledged: a.sink.acknowledged + b.sink.acknowledged, rolled: a.sink.rolled + b.sink.rolled, pending: b.sink.pending, unrolled: b.sink.unrolled },
  outbox: { files: b.outbox.files, bytes: b.outbox.bytes, uploaded: a.outbox.uploaded + b.outbox.uploaded },
  dropped: a.dropped + b.dropped
})
const seen = (c: ClickCounts) => c.clicks.people + c.clicks.agent + c.clicks.bot

/** What the writer thread sends, decoded before it is trusted. */
export const receiveFromWriter = receiver("click writer (to the redirect thread)", ToMain)

/**
 * The redirect thread's end of the click writer thread (clickWriter.ts): raw clicks are gathered
 * and posted in batches of interned strings (ClickBatch), which costs the redirect thread a few
 * tenths of a microsecond a click; the writer derives, spools and rolls them. A writer that dies is restarted (its spool is rolled on
 * start, so what it had acknowledged is kept); clicks it had not yet spooled are lost and logged.
 */
export class ClickChannel implements ClickIntake {
  private worker!: Worker
  private ready = false
  private readonly pending = new ClickBatchBuilder()
  private timer: NodeJS.Timeout | undefined
  /** Counts of writers that ended, plus the current writer's latest report. */
  private past: ClickCounts = ZERO
  private current: ClickCounts = ZERO
  /** Clicks posted to the current writer. */
  private posted = 0
  private closing = false
  private nextId = 0
  private readonly flushes = new Map<number, { resolve: () => void; reject: (error: Error) => void }>()
  private started!: { resolve: () => void; reject: (error: Error) => void }
  private readyWaiters: Array<() => void> = []
  /** A writer died and its successor is being started. */
  private restarting = false
  /** Clicks dropped here: writer backlogged, or lost with a writer that died. */
  private refused = 0
  /** Messages refused by writers that ended, and by the current one (its latest report). */
  private pastWriterRefusals = 0
  private writerRefusals = 0

  private constructor(
    private readonly options: ClickWriterOptions,
    private readonly maxBacklog: number,
    private readonly closeTimeoutMs: number
  ) {}

  /**
   * Starts the writer thread; resolves once its spool is open (leftover segments rolled).
   * `closeTimeoutMs` bounds close(), a writer's restart included (10 s unless given).
   */
  static async start(
    options: ClickWriterOptions,
    limits: { readonly maxBacklog?: number; readonly closeTimeoutMs?: number } = {}
  ): Promise<ClickChannel> {
    const channel = new ClickChannel(options, limits.maxBacklog ?? MAX_BACKLOG, limits.closeTimeoutMs ?? CLOSE_TIMEOUT_MS)
    await new Promise<void>((resolve, reject) => {
      channel.started = { resolve, reject }
      channel.spawn()
    })
    return channel
  }

  get counts(): ClickCounts {
    return add(this.past, this.current)
  }

  /**
   * Every click counted and never to be written: refused here (writer backlogged), lost with a
   * writer that died, or dropped by a writer (its spool buffer full while the disk refused writes).
   */
  get dropped(): number {
    return this.refused + this.counts.dropped
  }

  /** Messages between the two threads that did not decode, refused by either end (each is logged). */
  get refusedMessages(): number {
    return receiveFromWriter.refused() + this.pastWriterRefusals + this.writerRefusals
  }

  add(click: RawClick): void {
    if (this.room() === 0) {
      this.refused++
      return
    }
    this.pending.add(click)
    this.queued()
  }

  /** A batch an HTTP worker thread gathered (engine/workers/), under the same backlog bound as clicks added here. */
  addColumns(columns: RawClickColumns): void {
    const count = Math.min(columns.timestamp.length, this.room())
    this.refused += columns.timestamp.length - count
    if (count === 0) return
    for (let i = 0; i < count; i++) this.pending.addFromColumns(columns, i)
    this.queued()
  }

  /** Clicks that may still be queued before the backlog bound. */
  private room(): number {
    return Math.max(0, this.maxBacklog - (this.posted + this.pending.size - seen(this.current)))
  }

  private queued(): void {
    if (this.pending.size >= BATCH) this.post()
    else this.timer ??= setTimeout(() => this.post(), INTERVAL_MS)
  }

  /** Everything added so far is spooled and rolled into Parquet (by a restarted writer, if need be). */
  async flush(): Promise<void> {
    if (!this.ready) await new Promise<void>((resolve) => this.readyWaiters.push(resolve))
    if (!this.ready) throw new Error("click writer is not running")
    this.post()
    const id = this.nextId++
    return new Promise<void>((resolve, reject) => {
      this.flushes.set(id, { resolve, reject })
      this.send({ type: "flush", id })
    })
  }

  /** Flushes, closes the spool and ends the thread (terminated if it has not within the close timeout). */
  async close(): Promise<void> {
    this.closing = true
    const deadline = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), this.closeTimeoutMs).unref())
    // A writer being restarted gets its chance to take what is queued.
    if (!this.ready && this.restarting) await Promise.race([new Promise<void>((resolve) => this.readyWaiters.push(resolve)), deadline])
    if (!this.ready) return void (await this.worker.terminate())
    this.post()
    const ended = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()))
    this.send({ type: "close" })
    if ((await Promise.race([ended, deadline])) === "late") {
      console.error(`click writer did not close within ${this.closeTimeoutMs / 1000} s; terminating it`)
      await this.worker.terminate()
    }
  }

  private post(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    if (!this.ready || this.pending.size === 0) return
    const clicks = this.pending.take()
    this.posted += clicks.timestamps.length
    // The typed arrays are the batch's own: moved, not copied.
    this.worker.postMessage({ type: "clicks", clicks } satisfies ToWriter, [clicks.timestamps.buffer, clicks.variants.buffer, clicks.ids.buffer])
  }

  private send(message: ToWriter): void {
    this.worker.postMessage(message)
  }

  private spawn(): void {
    const worker = new Worker(workerEntry(import.meta.url, "clickWriter"), { workerData: this.options })
    this.worker = worker
    this.ready = false
    this.posted = 0
    this.current = ZERO
    this.pending.writerRestarted()
    worker.on("message", (message: unknown) => {
      const decoded = receiveFromWriter(message)
      if (decoded !== undefined) this.receive(decoded)
    })
    worker.on("error", (error) => console.error("click writer failed", error))
    worker.on("exit", (code) => this.exited(worker, code))
  }

  private receive(message: ToMain): void {
    switch (message.type) {
      case "ready":
        this.ready = true
        this.restarting = false
        this.started.resolve()
        this.post()
        for (const resolve of this.readyWaiters.splice(0)) resolve()
        return
      case "failed":
        this.started.reject(new Error(`click writer: ${message.error}`))
        return
      case "counts":
        this.current = { clicks: message.clicks, sink: message.sink, outbox: message.outbox, dropped: message.dropped }
        this.writerRefusals = message.refused
        return
      case "flushed": {
        const waiter = this.flushes.get(message.id)
        this.flushes.delete(message.id)
        if (message.error === undefined) waiter?.resolve()
        else waiter?.reject(new Error(message.error))
        return
      }
      case "resync":
        this.pending.writerRestarted()
        return
      case "closed":
        return
    }
  }

  private exited(worker: Worker, code: number): void {
    if (worker !== this.worker) return
    const wasReady = this.ready
    this.ready = false
    // Bots are never spooled and dropped clicks are counted already; every other click posted and
    // not acknowledged went with the writer.
    const lost = Math.max(0, this.posted - this.current.sink.acknowledged - this.current.clicks.bot - this.current.dropped)
    this.past = add(this.past, this.current)
    this.current = ZERO
    this.pastWriterRefusals += this.writerRefusals
    this.writerRefusals = 0
    for (const waiter of this.flushes.values()) waiter.reject(new Error(`click writer exited (${code})`))
    this.flushes.clear()
    if (this.closing && !this.restarting) return
    if (!wasReady) {
      // It never opened its spool: starting again would fail the same way. New clicks are now
      // dropped (counted) once the backlog bound is reached; the log says why.
      this.restarting = false
      for (const resolve of this.readyWaiters.splice(0)) resolve()
      console.error(`click writer exited (${code}) before its spool was open; clicks are not being written`)
      this.started.reject(new Error(`click writer exited (${code}) before it was ready`))
      return
    }
    if (lost > 0) this.refused += lost
    console.error(`click writer exited (${code}); ${lost} clicks it had not acknowledged are lost; restarting in ${RESTART_MS} ms`)
    this.restarting = true
    setTimeout(() => this.spawn(), RESTART_MS).unref()
  }
}
