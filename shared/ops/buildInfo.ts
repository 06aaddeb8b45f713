import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"

/**
 * This installation's version, from the package.json above this file: found by walking up, so it
 * is the same whether the sources run or a build of them from another directory. "unknown" when
 * none names itself ricochet (a copy of the files without it).
 */
const ricochetVersion = (from: string): string => {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json")
    if (existsSync(file)) {
      try {
        const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown }
        if (manifest.name === "ricochet" && typeof manifest.version === "string") return manifest.version
      } catch {
        // Not ours, or not readable: keep looking further up.
      }
    }
    if (path.dirname(dir) === dir) return "unknown"
  }
}

let version: string | undefined

/** What `ricochet_build_info` says: Ricochet's version and the Node.js running it. */
export const buildInfo = (): { readonly version: string; readonly node: string } => ({
  version: (version ??= ricochetVersion(import.meta.dirname)),
  node: process.versions.node
})
