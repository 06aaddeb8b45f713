import { parentPort } from "node:worker_threads"
import { openDuckDb } from "../../shared/clicks/parquet.ts"
import { convertSegment, type SegmentJob } from "./spoolSink.ts"

/**
 * Worker thread that turns sealed spool segments into Parquet. Decoding a segment and preparing
 * it for DuckDB costs microseconds a click; here it does not hold up the thread serving redirects.
 */
const duck = await openDuckDb(1)
let queue: Promise<void> = Promise.resolve()

parentPort!.on("message", (message: { id: number; job: SegmentJob } | { close: true }) => {
  if ("close" in message) {
    // Finish what is queued and close DuckDB before the thread ends, rather than being terminated
    // with native threads still open.
    void queue.then(() => {
      duck.closeSync()
      parentPort!.close()
    })
    return
  }
  queue = queue.then(async () => {
    try {
      parentPort!.postMessage({ id: message.id, count: await convertSegment(duck, message.job) })
    } catch (error) {
      parentPort!.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) })
    }
  })
})
