import { Worker } from "node:worker_threads"
import type { SegmentJob } from "./spoolSink.ts"

/** The roll worker seen from the engine thread: `convert` a segment, `close` when done. */
export const startRollWorker = () => {
  const worker = new Worker(new URL("./rollWorkerEntry.mjs", import.meta.url))
  const waiting = new Map<number, { resolve: (count: number) => void; reject: (error: Error) => void }>()
  let next = 0
  worker.on("message", (message: { id: number; count?: number; error?: string }) => {
    const waiter = waiting.get(message.id)
    waiting.delete(message.id)
    if (message.error !== undefined) waiter?.reject(new Error(message.error))
    else waiter?.resolve(message.count!)
  })
  worker.on("error", (error) => {
    for (const waiter of waiting.values()) waiter.reject(error)
    waiting.clear()
  })
  worker.unref()
  return {
    convert: (job: SegmentJob) =>
      new Promise<number>((resolve, reject) => {
        const id = next++
        waiting.set(id, { resolve, reject })
        worker.postMessage({ id, job })
      }),
    close: () => worker.terminate()
  }
}
