import { readFileSync } from "node:fs"
import { mkdir, writeFile } from "node:fs/promises"
import { hostname } from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { holderAlive, LOCK_FILE, type LockHolder, lockDirectory } from "../../shared/startup/directoryLock.ts"
import { removeDir, tempDir } from "../support/processes.ts"

const holder = (overrides: Partial<LockHolder>): LockHolder => ({
  pid: 1, host: hostname(), bootId: undefined, startTicks: undefined, since: "2026-01-01T00:00:00.000Z", token: "t", what: "test", ...overrides
})

describe("directory locks", () => {
  let dir: string
  beforeAll(async () => {
    dir = await tempDir()
  })
  afterAll(async () => {
    await removeDir(dir)
  })

  it("grants a directory to one claim at a time, and again once released", async () => {
    const first = await lockDirectory(path.join(dir, "a"), "first")
    if ("heldBy" in first) throw new Error("not granted")
    await first.release()
    const second = await lockDirectory(path.join(dir, "a"), "second")
    expect("heldBy" in second).toBe(false)
  })

  it.each<readonly [string, Partial<LockHolder>, boolean]>([
    ["a live process of this host (the parent of this one)", { pid: process.ppid }, true],
    ["a pid that no longer runs", { pid: 2 ** 22 - 1 }, false],
    ["this process's own pid (a container's pid 1 after a restart)", { pid: process.pid }, false],
    ["a live pid with another start time (the pid reused)", { pid: process.ppid, bootId: "from-this-boot", startTicks: "1" }, false],
    ["another boot of this host", { pid: process.ppid, bootId: "another-boot", startTicks: "1" }, false],
    ["another host (cannot be checked from here)", { pid: 2 ** 22 - 1, host: "elsewhere.example" }, true]
  ])("a holder that is %s is alive: %s", (_case, overrides, alive) => {
    const bootId = overrides.bootId === "from-this-boot" ? readBootId() : overrides.bootId
    expect(holderAlive(holder({ ...overrides, bootId }))).toBe(alive)
  })

  it("takes over a lock file whose holder is dead, and refuses one whose holder lives", async () => {
    const stale = path.join(dir, "stale")
    await mkdir(stale)
    await writeFile(path.join(stale, LOCK_FILE), JSON.stringify(holder({ pid: 2 ** 22 - 1 })))
    expect("heldBy" in (await lockDirectory(stale, "taker"))).toBe(false)
    const live = path.join(dir, "live")
    await mkdir(live)
    await writeFile(path.join(live, LOCK_FILE), JSON.stringify(holder({ pid: process.ppid, what: "the parent" })))
    const refused = await lockDirectory(live, "taker")
    expect(refused).toEqual({ heldBy: expect.objectContaining({ pid: process.ppid, what: "the parent" }) })
  })
})

const readBootId = (): string | undefined => {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
  } catch {
    return undefined
  }
}
