import { getPriority, setPriority } from "node:os"

/**
 * Lowers the calling thread's priority to `nice`, or leaves it where it is when it is that low
 * already (raising it back needs privileges). Only on Linux, where a nice value belongs to one
 * thread (setpriority with who = 0 names the calling thread): elsewhere it is the whole
 * process's, and the thread serving requests would be lowered with it. Threads this one starts
 * afterwards inherit it. False when it was not lowered (another platform, or the system refused);
 * `thread` names it in the log.
 */
export const lowerThreadPriority = (nice: number, thread: string, platform: NodeJS.Platform = process.platform): boolean => {
  if (platform !== "linux") return false
  try {
    setPriority(0, Math.max(getPriority(0), nice))
    return true
  } catch (error) {
    console.error(`${thread}: could not lower its priority (${error instanceof Error ? error.message : String(error)}); it runs at the main thread's`)
    return false
  }
}
