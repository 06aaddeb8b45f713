import { lowerThreadPriority as lowerThread } from "../../shared/threads/threadPriority.ts"

/**
 * The nice value the click writer thread runs at. Counting a click costs more CPU than answering
 * its redirect, and on a machine whose cores are all busy the two compete: the writer at a lower
 * priority lets the kernel give the redirect thread the core first, and takes what is left.
 * 10 weighs the writer at about a tenth of a nice-0 thread when both want the same core; on an
 * engine busy enough to starve it, its backlog bound (clickChannel.ts) drops and counts clicks
 * rather than slowing redirects.
 */
export const CLICK_WRITER_NICE = 10

/** The calling thread lowered to `nice` (shared/threads/threadPriority.ts), as the click writer. */
export const lowerThreadPriority = (nice: number, platform: NodeJS.Platform = process.platform): boolean =>
  lowerThread(nice, "click writer", platform)
