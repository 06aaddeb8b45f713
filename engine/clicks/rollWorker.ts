import { setPriority } from "node:os"
import { parentPort } from "node:worker_threads"
import { openDuckDb } from "../../shared/clicks/parquet.ts"
import { convertSegment, type SegmentJob } from "./spoolSink.ts"

/**
 * Worker thread that turns sealed spool segments into Parquet. Decoding a segment and preparing
 * it for DuckDB costs microseconds a click; here it does not hold up the thread serving redirects.
 */
// Background work: under load the redirect thread should win the CPU and the roll catch up in the
// gaps (the spool holds the clicks meanwhile). On Linux a priority set with pid 0 applies to this
// thread only, and the threads DuckDB starts next inherit it.
try {
  setPriority(0, 10)
} catch {
  // Not permitted here (some containers): the roll runs at normal priority.
}
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
