import { type ChildProcess, spawn } from "node:child_process"
import { availableParallelism } from "node:os"

/**
 * A machine under heavy load: one child process per core spinning at normal priority, so the
 * processes under test compete for every core (their timers fire late, their threads are
 * preempted mid-request). Stopped with `stop()`; a child never outlives the test process.
 */
export const startCpuLoad = (processes = availableParallelism()) => {
  const children: Array<ChildProcess> = Array.from({ length: processes }, () =>
    spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }))
  const stopAll = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  process.once("exit", stopAll)
  return {
    stop: async () => {
      process.off("exit", stopAll)
      await Promise.all(children.map((child) =>
        child.exitCode !== null || child.signalCode !== null ? undefined : new Promise<void>((resolve) => {
          child.once("exit", () => resolve())
          child.kill("SIGKILL")
        })))
    }
  }
}
