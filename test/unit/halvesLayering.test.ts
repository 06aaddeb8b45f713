import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { ROOT } from "../support/processes.ts"

/**
 * engine/ and control/ both stand on shared/ and never on each other; shared/ knows neither (what
 * must know both, such as validating every variable at start, sits at the root: config.ts,
 * main.ts, cli/). Read from the sources: relative imports and re-exports, type imports included.
 */
const importsOf = (folder: string): Array<{ file: string; target: string }> =>
  readdirSync(path.join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(ts|mts|mjs)$/.test(file))
    .flatMap((file) => {
      const source = path.join(ROOT, folder, file)
      const text = readFileSync(source, "utf8")
      return [...text.matchAll(/^\s*(?:import|export)\s+(?:[^"'`;]*?\sfrom\s+)?["'](\.{1,2}\/[^"']+)["']/gm)].map((match) => ({
        file: path.relative(ROOT, source),
        target: path.relative(ROOT, path.resolve(path.dirname(source), match[1]))
      }))
    })

const crossing = (folder: string, forbidden: ReadonlyArray<string>) =>
  importsOf(folder)
    .filter(({ target }) => forbidden.some((top) => target === top || target.startsWith(`${top}/`) || !target.includes("/")))
    .map(({ file, target }) => `${file} -> ${target}`)

describe("the halves point one way: engine and control on shared, shared on neither", () => {
  it("reads the imports (a parser that found nothing would pass everything)", () => {
    expect(importsOf("engine").some(({ target }) => target.startsWith("shared/"))).toBe(true)
    expect(importsOf("control").some(({ target }) => target.startsWith("shared/"))).toBe(true)
  })

  it.each([
    { folder: "shared", forbidden: ["engine", "control", "cli", "dashboard"] },
    { folder: "engine", forbidden: ["control", "cli", "dashboard"] },
    { folder: "control", forbidden: ["engine", "cli"] }
  ])("$folder imports nothing of $forbidden nor a root file", ({ folder, forbidden }) => {
    expect(crossing(folder, forbidden)).toEqual([])
  })
})
