import { readdir, readFile } from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { ROOT, WORKERS } from "../../scripts/build.ts"
import { runsBuilt, workerEntry } from "../../shared/build/modulePaths.ts"

describe("workerEntry: what a worker thread runs, from source or built", () => {
  it.each<readonly [string, string]>([
    // From source (tsx, vitest): the .mjs beside the module, which registers tsx in the thread.
    ["file:///app/engine/workers/httpWorkers.ts", "file:///app/engine/workers/httpWorkerEntry.mjs"],
    // Built: every module is in a bundle of dist/, and so is the worker's.
    ["file:///app/dist/program-main.js", "file:///app/dist/httpWorker.js"],
    ["file:///app/dist/program-ricochet.js", "file:///app/dist/httpWorker.js"]
  ])("%s starts %s", (moduleUrl, entry) => {
    expect(workerEntry(moduleUrl, "httpWorker").href).toBe(entry)
  })

  it("tells a source module from a bundle by its URL", () => {
    expect(runsBuilt("file:///app/control/dashboard/assets.ts")).toBe(false)
    expect(runsBuilt(new URL("file:///app/dist/program-main.js"))).toBe(true)
  })

  it("is how every module names a worker's entry (a `…Entry.mjs` named directly would be missing from dist/)", async () => {
    const sources = (await Promise.all(["engine", "control", "shared", "cli"].map(async (dir) => (await readdir(path.join(ROOT, dir), { recursive: true })).map((file) => path.join(dir, file)))))
      .flat()
      .filter((file) => file.endsWith(".ts") && file !== path.join("shared", "build", "modulePaths.ts"))
    const naming = []
    for (const file of sources) if (/Entry\.mjs["'`]/.test(await readFile(path.join(ROOT, file), "utf8"))) naming.push(file)
    expect(naming).toEqual([])
  })

  it("has a bundle in the build for every worker entry of the sources", async () => {
    const entries = (await Promise.all(["engine", "control", "shared"].map((dir) => readdir(path.join(ROOT, dir), { recursive: true }))))
      .flat()
      .filter((file) => file.endsWith("Entry.mjs"))
      .map((file) => path.basename(file, "Entry.mjs"))
    expect(entries.length).toBeGreaterThan(0)
    expect(WORKERS.map((source) => path.basename(source, ".ts")).sort()).toEqual(entries.sort())
  })
})
