import { createReadStream } from "node:fs"
import { readdir, stat, unlink } from "node:fs/promises"
import * as path from "node:path"
import { Readable } from "node:stream"
import type { ClickBucketConnection } from "../../shared/clicks/clickBucket.ts"
import { objectNameOf } from "../../shared/clicks/clickBucket.ts"

export interface SegmentUploaderOptions {
  /** Where the spool sink writes its Parquet files (the engine's outbox; nobody else reads it). */
  readonly outboxDir: string
  readonly connection: ClickBucketConnection
  /** Bytes of files waiting beyond which the sink refuses new clicks (see full()). */
  readonly budgetBytes: number
  /** How often the outbox is looked at besides after each roll (a retry's backoff wins while failing). */
  readonly scanMs: number
}

/** Retries of a refused put: 250 ms, doubling up to 5 s. */
const FIRST_RETRY_MS = 250
const MAX_RETRY_MS = 5_000
/** At close, a put still in flight is given this long; what it did not send goes at the next start. */
const CLOSE_WAIT_MS = 3_000

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Sends the engine's sealed Parquet files to the click bucket (RICOCHET_CLICKS_TRANSPORT=bucket),
 * oldest first, one at a time, in the click writer thread (never on the redirect path). A file is
 * deleted only after the bucket acknowledged it (every chunk and its metadata stored); a put that
 * fails leaves the file for the next attempt, with backoff while NATS is away. A put acknowledged
 * but whose file is still here after a crash is put again under the same name: the object is
 * replaced by the same bytes, which mirrors skip by digest, so a click never counts twice.
 *
 * What waits is bounded by `budgetBytes`: full() says so, and the sink then refuses new clicks
 * (the collector counts them dropped) rather than filling the disk.
 */
export class SegmentUploader {
  /** Files and bytes waiting in the outbox (as of the last look), files put since start. */
  readonly counts = { files: 0, bytes: 0, uploaded: 0 }
  private running: Promise<void> | undefined
  private again = false
  private timer: NodeJS.Timeout | undefined
  private retryMs = 0
  private retryAt = 0
  private failingSince: number | undefined
  private closed = false

  private constructor(private readonly options: SegmentUploaderOptions) {}

  static start(options: SegmentUploaderOptions): SegmentUploader {
    const uploader = new SegmentUploader(options)
    uploader.timer = setInterval(() => uploader.kick(), options.scanMs)
    uploader.timer.unref()
    uploader.kick()
    return uploader
  }

  /** A reason to refuse new clicks while the files waiting are at the budget, else undefined. */
  full(): string | undefined {
    if (this.counts.bytes < this.options.budgetBytes) return undefined
    return `${this.counts.files} click files (${this.counts.bytes} bytes) wait for the click bucket, at most ${this.options.budgetBytes} bytes`
  }

  /** Looks at the outbox now (after a roll); one pass at a time, another after it if asked meanwhile. */
  kick(): void {
    if (this.closed) return
    if (this.running !== undefined) {
      this.again = true
      return
    }
    this.running = this.pass().finally(() => {
      this.running = undefined
      if (this.again && !this.closed) {
        this.again = false
        this.kick()
      }
    })
  }

  /** The Parquet files waiting, oldest first (names sort by date, hour, engine and sequence). */
  private async waiting(): Promise<Array<{ file: string; name: string; size: number }>> {
    let entries: Array<string>
    try {
      entries = await readdir(this.options.outboxDir, { recursive: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return []
      throw error
    }
    const files: Array<{ file: string; name: string; size: number }> = []
    for (const entry of entries.sort()) {
      const file = path.join(this.options.outboxDir, entry)
      const name = objectNameOf(this.options.outboxDir, file)
      if (name === undefined || !name.endsWith(".parquet")) continue
      const size = await stat(file).then((s) => (s.isFile() ? s.size : undefined), () => undefined)
      if (size !== undefined) files.push({ file, name, size })
    }
    return files
  }

  private async pass(): Promise<void> {
    try {
      const files = await this.waiting()
      this.counts.files = files.length
      this.counts.bytes = files.reduce((sum, f) => sum + f.size, 0)
      if (files.length === 0 || Date.now() < this.retryAt) return
      // Not waited for past a moment: the files and their bytes are counted again at every look.
      const store = await Promise.race([this.options.connection.bucket(), new Promise<undefined>((resolve) => setTimeout(resolve, 1_000))])
      if (store === undefined) throw new Error("NATS not reached yet")
      for (const { file, name, size } of files) {
        if (this.closed) return
        // Node's stream as the web stream nats.js reads; a chunk at a time, never the whole file in memory.
        await store.put({ name }, Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>)
        await unlink(file)
        this.counts.files--
        this.counts.bytes -= size
        this.counts.uploaded++
      }
      this.succeeded()
    } catch (error) {
      this.failed(error)
    }
  }

  private succeeded() {
    if (this.failingSince !== undefined) {
      console.log(`click bucket: sending files again after ${((Date.now() - this.failingSince) / 1000).toFixed(1)} s`)
    }
    this.failingSince = undefined
    this.retryMs = 0
    this.retryAt = 0
  }

  private failed(error: unknown) {
    if (this.closed) return
    this.retryMs = this.retryMs === 0 ? FIRST_RETRY_MS : Math.min(this.retryMs * 2, MAX_RETRY_MS)
    this.retryAt = Date.now() + this.retryMs
    if (this.failingSince === undefined) {
      this.failingSince = Date.now()
      console.error(`click bucket: sending a click file failed (${messageOf(error)}); files wait in ${this.options.outboxDir} and are retried`)
    }
    setTimeout(() => this.kick(), this.retryMs).unref()
  }

  /** Stops; a put in flight is given CLOSE_WAIT_MS (what remains is sent by the next start). The connection is the caller's. */
  async close(): Promise<void> {
    this.closed = true
    if (this.timer !== undefined) clearInterval(this.timer)
    if (this.running !== undefined) await Promise.race([this.running, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS))])
  }
}
