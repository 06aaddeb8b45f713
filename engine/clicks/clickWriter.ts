import { parentPort, workerData } from "node:worker_threads"
import { openDuckDb } from "../../shared/clicks/parquet.ts"
import { makeGeoLookup } from "../geo/geo.ts"
import { ClickCollector } from "./collector.ts"
import { SpoolSink } from "./spoolSink.ts"
import { CLICK_WRITER_NICE, lowerThreadPriority } from "./writerPriority.ts"
import { type ToMain, ToWriter } from "../../shared/clicks/writerMessages.ts"
import { receiver } from "../../shared/messages/receiver.ts"
import type { ClickWriterOptions } from "./clickWriterProtocol.ts"
import { ClickBatchReader } from "./clickBatchReader.ts"
import { installConsoleLogging } from "../../shared/logging/installLogging.ts"
import { clickBucketConnection } from "../../shared/clicks/clickBucket.ts"
import { SegmentUploader } from "./segmentUploader.ts"

/**
 * The click writer thread (docs/architecture.md#how-a-click-becomes-a-row). It owns
 * everything a click costs after the redirect has been answered: classification, geo, device,
 * the visitor hash, the spool and its fsyncs, and the roll to Parquet. The thread serving
 * redirects only hands over the raw facts, and this thread runs at a lower priority than it
 * (writerPriority.ts).
 */
// The thread's own console: its lines in the format the process chose (passed on in the environment).
installConsoleLogging()
const options = workerData as ClickWriterOptions
const port = parentPort!
const send = (message: ToMain) => port.postMessage(message)
/**
 * What the redirect thread sends, decoded before it is trusted: a batch that does not decode is
 * refused whole (logged, counted in the reports) rather than written as clicks it does not hold.
 * A batch's strings come once per distinct string (ClickBatch), so this costs little a click.
 */
const receive = receiver("click writer", ToWriter)
const batches = new ClickBatchReader()

// Before DuckDB starts any thread of its own, so those inherit it.
lowerThreadPriority(CLICK_WRITER_NICE)
const duck = await openDuckDb(1)
const geo = makeGeoLookup({ header: options.geoHeader, countryDatabase: options.countryDatabase, cityDatabase: options.cityDatabase })
// Before the sink opens: the files of the segments it recovers go out too.
const connection = options.upload === undefined ? undefined : clickBucketConnection(options.upload, `engine ${options.spool.engineId} click uploader`)
const uploader = options.upload === undefined || connection === undefined ? undefined : SegmentUploader.start({
  outboxDir: options.spool.clicksDir,
  connection,
  budgetBytes: options.upload.budgetBytes,
  scanMs: Math.min(1_000, options.spool.rollMs)
})
let sink: SpoolSink
try {
  sink = await SpoolSink.open({ ...options.spool, duck, refuse: () => uploader?.full(), onRolled: () => uploader?.kick() })
} catch (error) {
  send({ type: "failed", error: error instanceof Error ? error.message : String(error) })
  await uploader?.close()
  await connection?.close()
  duck.closeSync()
  port.close()
  throw error
}
const collector = new ClickCollector(sink, geo, options.secret)

const outbox = () => ({ ...(uploader?.counts ?? { files: 0, bytes: 0, uploaded: 0 }) })
const report = (): void =>
  send({ type: "counts", clicks: { ...collector.counts }, sink: { ...sink.counts }, outbox: outbox(), dropped: collector.dropped, refused: receive.refused() })
// The numbers the engine's status shows: sent when they change, at most a few times a second.
let lastReported = ""
const timer = setInterval(() => {
  const now = JSON.stringify([collector.counts, sink.counts, uploader?.counts, collector.dropped, receive.refused()])
  if (now !== lastReported) {
    lastReported = now
    report()
  }
}, 100)

port.on("message", (received: unknown) => {
  const message = receive(received)
  if (message === undefined) return
  switch (message.type) {
    case "clicks": {
      const clicks = batches.read(message.clicks)
      if (typeof clicks === "string") {
        receive.refuse(clicks)
        // Later batches extend the table this one should have: the redirect thread sends it whole again.
        send({ type: "resync" })
        return
      }
      for (const click of clicks) collector.add(click)
      return
    }
    case "flush":
      void collector.flush().then(
        () => {
          report()
          send({ type: "flushed", id: message.id })
        },
        (error) => send({ type: "flushed", id: message.id, error: String(error) })
      )
      return
    case "close":
      clearInterval(timer)
      void (async () => {
        try {
          // Bounded even while the disk refuses writes: what it never took is counted dropped.
          await collector.close()
        } catch (error) {
          console.error("click writer: closing the spool failed", error)
        } finally {
          // After the last roll: its files go out now if the bucket takes them at once.
          if (uploader !== undefined) {
            uploader.kick()
            await uploader.close()
          }
          await connection?.close()
          report()
          duck.closeSync()
          send({ type: "closed" })
          port.close()
        }
      })()
      return
  }
})
send({ type: "ready" })
