import { readdirSync, readFileSync } from "node:fs"

/** The nice value of each thread of this process by thread id, from /proc (field 19 of a task's stat line). Linux only. */
export const threadNiceValues = (): Map<number, number> =>
  new Map(readdirSync("/proc/self/task").flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8")
      return [[Number(tid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])] as const]
    } catch {
      return [] // a thread that ended while being listed
    }
  }))

/** The nice value of this process's main thread. */
export const mainThreadNice = (): number => threadNiceValues().get(process.pid)!
