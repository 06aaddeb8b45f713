import { type ChildProcess, spawn } from "node:child_process"
import { availableParallelism } from "node:os"

/**
 * CPU load for fault tests: one process per core (by default) spinning at the normal priority,
 * so every thread of the processes under test competes for a core as on a saturated machine.
 */
export interface CpuBurners {
  readonly count: number
  readonly stop: () => Promise<void>
}

export const startCpuBurners = (count = availableParallelism()): CpuBurners => {
  const children: Array<ChildProcess> = Array.from({ length: count }, () =>
    spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }))
  return {
    count,
    stop: async () => {
      await Promise.all(children.map((child) =>
        child.exitCode !== null || child.signalCode !== null
          ? undefined
          : new Promise<void>((resolve) => {
            child.once("exit", () => resolve())
            child.kill("SIGKILL")
          })))
    }
  }
}
