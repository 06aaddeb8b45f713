// A worker thread that lowers its own priority with engine/clicks/writerPriority.ts, reports
// what it did, and waits until told to end (so its nice value can be read from /proc meanwhile).
import { register } from "tsx/esm/api"
import { getPriority } from "node:os"
import { parentPort, workerData } from "node:worker_threads"

register()
const { lowerThreadPriority } = await import("../../engine/clicks/writerPriority.ts")
const lowered = lowerThreadPriority(workerData.nice)
parentPort.postMessage({ lowered, nice: getPriority(0) })
parentPort.once("message", () => process.exit(0))
