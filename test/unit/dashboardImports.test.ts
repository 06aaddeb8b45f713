import { readFileSync } from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { ROOT } from "../support/processes.ts"

/**
 * What the browser bundle can reach from dashboard/src/main.tsx, following value imports (type
 * imports are erased): files of the repository and package names. Read from the sources, so a
 * server module pulled in by a new import fails here, before any build.
 */
const reachable = () => {
  const files = new Set<string>()
  const packages = new Set<string>()
  const queue = [path.join(ROOT, "dashboard/src/main.tsx")]
  while (queue.length > 0) {
    const file = queue.pop()!
    if (files.has(file)) continue
    files.add(file)
    const text = readFileSync(file, "utf8")
    const specifiers = [
      ...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^"'`;]*?\sfrom\s+)?["']([^"']+)["']/gm),
      ...text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)
    ].map((m) => m[1])
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) {
        const resolved = path.resolve(path.dirname(file), specifier)
        if (/\.(tsx?|css)$/.test(resolved) && !resolved.endsWith(".css")) queue.push(resolved)
      } else packages.add(specifier)
    }
  }
  return { files: [...files].map((f) => path.relative(ROOT, f)), packages: [...packages] }
}

describe("the dashboard's bundle", () => {
  const { files, packages } = reachable()

  it("reaches the API declaration and pure rules of control/, never its server modules", () => {
    expect(files).toContain("control/api/Api.ts")
    const serverSide = files.filter((f) =>
      f === "control/kernel/issues.ts" || f.startsWith("control/db/") || f.startsWith("control/http/") ||
      /Layer\.ts$|Repository\.ts$|Service\.ts$|handlers\.ts$/.test(f))
    expect(serverSide).toEqual([])
  })

  it("imports no Node module and no server package", () => {
    expect(packages.filter((p) => p.startsWith("node:") || ["postgres", "@duckdb/node-api", "uWebSockets.js", "nats", "maxmind", "@electric-sql/pglite"].includes(p))).toEqual([])
  })
})
