import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { mkdir, open, readFile, rename, rm } from "node:fs/promises"
import { hostname } from "node:os"
import * as path from "node:path"

/**
 * An exclusive claim on a directory by one process: a file created with O_EXCL naming its holder.
 * Node has no flock, and a lock file outlives a killed holder, so a holder is alive only while its
 * process is: the same boot of the same host, the same pid, and that pid started at the same
 * moment (/proc's start time), so a pid reused by another program never keeps a lock. A lock left
 * by a dead holder is taken over.
 */

/** The lock file inside a locked directory. */
export const LOCK_FILE = "ricochet.lock"

/** Who holds a directory. */
export interface LockHolder {
  readonly pid: number
  readonly host: string
  /** The kernel's boot id and the process's start time in clock ticks since boot (Linux); undefined elsewhere. */
  readonly bootId: string | undefined
  readonly startTicks: string | undefined
  readonly since: string
  readonly token: string
  /** What the holder is (`npm start`, `engine eng-1`): for the message of the one refused. */
  readonly what: string
}

export interface HeldLock {
  readonly holder: LockHolder
  /** Removes the lock file if it is still ours; never rejects (a lock left behind names a dead holder, which the next start takes over). */
  readonly release: () => Promise<void>
}

const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

const bootId = (): string | undefined => readText("/proc/sys/kernel/random/boot_id")?.trim()

/** Field 22 of /proc/PID/stat (after the command, which may hold spaces and parentheses). */
const startTicks = (pid: number): string | undefined => {
  const stat = readText(`/proc/${pid}/stat`)
  if (stat === undefined) return undefined
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
}

const processExists = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Whether the process that wrote `holder` still runs (on another host: assumed so, it cannot be checked from here). */
export const holderAlive = (holder: LockHolder): boolean => {
  if (holder.host !== hostname()) return true
  // This process has not taken the lock yet: a lock naming its pid is a previous life's (a container's pid 1).
  if (holder.pid === process.pid) return false
  if (holder.bootId !== undefined && bootId() !== undefined) {
    if (holder.bootId !== bootId()) return false
    return startTicks(holder.pid) === holder.startTicks
  }
  return processExists(holder.pid)
}

const me = (what: string): LockHolder => ({
  pid: process.pid,
  host: hostname(),
  bootId: bootId(),
  startTicks: startTicks(process.pid),
  since: new Date().toISOString(),
  token: randomBytes(8).toString("hex"),
  what
})

const parseHolder = (text: string | undefined): LockHolder | undefined => {
  if (text === undefined) return undefined
  try {
    const value = JSON.parse(text) as LockHolder
    return typeof value.pid === "number" && typeof value.token === "string" ? value : undefined
  } catch {
    return undefined
  }
}

/** Creates the lock file if nobody has; false when it exists. */
const create = async (file: string, holder: LockHolder): Promise<boolean> => {
  try {
    const handle = await open(file, "wx", 0o644)
    try {
      await handle.writeFile(JSON.stringify(holder))
      await handle.sync()
    } finally {
      await handle.close()
    }
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
}

/**
 * Claims `dir` (created if missing) for this process, or names who holds it. A lock whose holder
 * has died is set aside (renamed, so that of two processes taking it over at once only one
 * succeeds) and claimed.
 */
export const lockDirectory = async (dir: string, what: string): Promise<HeldLock | { readonly heldBy: LockHolder }> => {
  await mkdir(dir, { recursive: true })
  const file = path.join(dir, LOCK_FILE)
  const holder = me(what)
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await create(file, holder)) {
      return {
        holder,
        release: async () => {
          const current = parseHolder(await readFile(file, "utf8").catch(() => undefined))
          if (current?.token === holder.token) await rm(file, { force: true }).catch(() => undefined)
        }
      }
    }
    const text = await readFile(file, "utf8").catch(() => undefined)
    const current = parseHolder(text)
    // Written by a holder between its create and its write: it is alive, give it a moment.
    if (current === undefined && text !== undefined && text.length === 0 && attempt < 4) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      continue
    }
    if (current !== undefined && holderAlive(current)) return { heldBy: current }
    // Dead (or unreadable): set aside exactly the file that was judged, then claim.
    const aside = `${file}.stale-${holder.token}`
    try {
      await rename(file, aside)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue
      throw error
    }
    const moved = await readFile(aside, "utf8").catch(() => undefined)
    if (moved !== text) {
      // Another process claimed it between the read and the rename: put its lock back.
      await rename(aside, file).catch(() => undefined)
      const live = parseHolder(moved)
      if (live !== undefined) return { heldBy: live }
      continue
    }
    await rm(aside, { force: true })
  }
  throw new Error(`could not claim ${file}: it keeps changing`)
}

/** `pid 1234 on host, since …`: who holds a lock, for a one-line refusal. */
export const describeHolder = (holder: LockHolder): string =>
  `${holder.what}, pid ${holder.pid}${holder.host === hostname() ? "" : ` on ${holder.host}`}, since ${holder.since}`

