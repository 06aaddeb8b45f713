import { getPriority, setPriority } from "node:os"

/**
 * The nice value the click writer thread runs at. Counting a click costs more CPU than answering
 * its redirect, and on a machine whose cores are all busy the two compete: the writer at a lower
 * priority lets the kernel give the redirect thread the core first, and takes what is left.
 * 10 weighs the writer at about a tenth of a nice-0 thread when both want the same core; on an
 * engine busy enough to starve it, its backlog bound (clickChannel.ts) drops and counts clicks
 * rather than slowing redirects.
 */
export const CLICK_WRITER_NICE = 10

/**
 * Lowers the calling thread's priority to `nice`, or leaves it where it is when it is that low
 * already (raising it back needs privileges). Only on Linux, where a nice value belongs to one
 * thread (setpriority with who = 0 names the calling thread): elsewhere it is the whole
 * process's, and the redirect thread would be lowered with it. Threads this one starts afterwards
 * inherit it. False when it was not lowered (another platform, or the system refused).
 */
export const lowerThreadPriority = (nice: number, platform: NodeJS.Platform = process.platform): boolean => {
  if (platform !== "linux") return false
  try {
    setPriority(0, Math.max(getPriority(0), nice))
    return true
  } catch (error) {
    console.error(`click writer: could not lower its priority (${error instanceof Error ? error.message : String(error)}); it runs at the redirect thread's`)
    return false
  }
}
