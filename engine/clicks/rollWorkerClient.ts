import { Worker } from "node:worker_threads"
import type { SegmentJob } from "./spoolSink.ts"

/** The roll worker seen from the engine thread: `convert` a segment, `close` when done. */
export const startRollWorker = () => {
  const worker = new Worker(new URL("./rollWorkerEntry.mjs", import.meta.url))
  const waiting = new Map<number, { resolve: (count: number) => void; reject: (error: Error) => void }>()
  let next = 0
  // A worker that died answers nothing: later conversions fail at once (the segment stays on disk
  // and is rolled at the next start) instead of hanging a roll, or a shutdown, forever.
  let dead: Error | undefined
  const fail = (error: Error) => {
    dead = error
    for (const waiter of waiting.values()) waiter.reject(error)
    waiting.clear()
  }
  worker.on("message", (message: { id: number; count?: number; error?: string }) => {
    const waiter = waiting.get(message.id)
    waiting.delete(message.id)
    if (message.error !== undefined) waiter?.reject(new Error(message.error))
    else waiter?.resolve(message.count!)
  })
  worker.on("error", fail)
  worker.on("exit", (code) => fail(new Error(`the roll worker exited (${code})`)))
  worker.unref()
  return {
    convert: (job: SegmentJob) =>
      new Promise<number>((resolve, reject) => {
        if (dead !== undefined) return reject(dead)
        const id = next++
        waiting.set(id, { resolve, reject })
        worker.postMessage({ id, job })
      }),
    /** Asks the worker to finish and close; terminates it only if it has not within 5 s. */
    close: async () => {
      if (dead !== undefined) return
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()))
      worker.postMessage({ close: true })
      const timer = setTimeout(() => void worker.terminate(), 5_000)
      await exited
      clearTimeout(timer)
    }
  }
}
