import { Worker } from "node:worker_threads"
import { describe, expect, it } from "vitest"
import { lowerThreadPriority } from "../../engine/clicks/writerPriority.ts"
import { mainThreadNice as mainNice, threadNiceValues } from "../support/threadNice.ts"

/** lowerThreadPriority(nice) in a worker thread, which stays until `end` is called. */
const lowerInWorker = async (nice: number) => {
  const worker = new Worker(new URL("../support/lowerPriorityWorker.mjs", import.meta.url), { workerData: { nice } })
  const report = await new Promise<{ lowered: boolean; nice: number }>((resolve, reject) => {
    worker.once("message", resolve)
    worker.once("error", reject)
  })
  return {
    report,
    end: async () => {
      worker.postMessage("end")
      await new Promise((resolve) => worker.once("exit", resolve))
    }
  }
}

describe.runIf(process.platform === "linux")("lowerThreadPriority on Linux", () => {
  it("lowers the calling thread alone, not the process's main thread", async () => {
    const before = mainNice()
    const target = Math.min(19, before + 7)
    const { report, end } = await lowerInWorker(target)
    try {
      expect(report).toEqual({ lowered: true, nice: target })
      const now = threadNiceValues()
      expect(now.get(process.pid)).toBe(before)
      expect([...now.values()]).toContain(target)
    } finally {
      await end()
    }
  })

  it("leaves a thread already lower than asked where it is", async () => {
    const before = mainNice()
    const { report, end } = await lowerInWorker(Math.max(0, before - 1))
    await end()
    expect(report).toEqual({ lowered: true, nice: before })
  })
})

describe("lowerThreadPriority elsewhere", () => {
  it("does nothing where a nice value is the whole process's", () => {
    const before = process.platform === "linux" ? mainNice() : undefined
    expect(lowerThreadPriority(10, "darwin")).toBe(false)
    expect(lowerThreadPriority(10, "win32")).toBe(false)
    if (before !== undefined) expect(mainNice()).toBe(before)
  })
})
