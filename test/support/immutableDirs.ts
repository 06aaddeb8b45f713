import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"

/** Whether `chattr +i` works here (root, on a file system that has it, such as ext4). */
export const canChattr = (() => {
  let probe: string | undefined
  try {
    probe = mkdtempSync(path.join(tmpdir(), "ricochet-chattr-"))
    execFileSync("chattr", ["+i", probe], { stdio: "ignore" })
    execFileSync("chattr", ["-i", probe], { stdio: "ignore" })
    return true
  } catch {
    return false
  } finally {
    if (probe !== undefined) rmSync(probe, { recursive: true, force: true })
  }
})()

/**
 * Directories made immutable (recursively: the directory and what is in it), which stops root
 * too, and restored. `thawAll` in an afterEach so a failed test never leaves one behind.
 */
export const immutableDirs = () => {
  const frozen = new Set<string>()
  return {
    freeze: (dir: string) => {
      frozen.add(dir)
      execFileSync("chattr", ["-R", "+i", dir])
    },
    thaw: (dir: string) => {
      execFileSync("chattr", ["-R", "-i", dir])
      frozen.delete(dir)
    },
    thawAll: () => {
      for (const dir of frozen) execFileSync("chattr", ["-R", "-i", dir])
      frozen.clear()
    }
  }
}
