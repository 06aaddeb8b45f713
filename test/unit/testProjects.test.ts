import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createVitest, type TestSpecification, type Vitest } from "vitest/node"
import { UNIT_FILES_OF_THEIR_OWN } from "../../vitest.config.ts"

const root = path.resolve(import.meta.dirname, "../..")

/** Every test file under test/, relative to the root. */
const testFiles = (): Array<string> =>
  readdirSync(path.join(root, "test"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts"))
    .map((file) => path.posix.join("test", file.split(path.sep).join("/")))
    .sort()

/**
 * What a file in a project whose files share a process (`isolate: false`) must not do: what it
 * starts outlives the file or costs more than a process of its own.
 */
const OWN_PROCESS_SIGNS: ReadonlyArray<[string, RegExp]> = [
  ["opens DuckDB", /from "@duckdb\/node-api"|\b(openDuckDb|ClickStore)\b/],
  ["starts a thread", /from "node:worker_threads"|\b(QrRenderPool|ClickChannel|HttpWorkers)\b/],
  ["starts a process", /from "node:child_process"|\b(runTs|runCli|runCliPiped|startControl|startEngineProcess|startEngineStack|startNats|startNatsCluster|startBackend)\b/],
  ["opens a database", /from "(postgres|@electric-sql\/pglite)"|\b(createTestDatabase|ADMIN_DATABASE_URL|startInProcessControl)\b/],
  ["starts vitest", /\b(createVitest|startVitest)\b/]
]

describe("the vitest projects (vitest.config.ts)", () => {
  let vitest: Vitest
  let specs: Array<TestSpecification>
  const relative = (spec: TestSpecification) => path.relative(root, spec.moduleId).split(path.sep).join("/")

  beforeAll(async () => {
    // Vitest itself says which project runs which file: the same globs, the same matching.
    vitest = await createVitest("test", { root, watch: false })
    specs = await vitest.globTestSpecifications()
  })
  afterAll(() => vitest?.close())

  it("run every test file under test/ in exactly one project", () => {
    const projectsOf = new Map(testFiles().map((file) => [file, [] as Array<string>]))
    for (const spec of specs) {
      const projects = projectsOf.get(relative(spec))
      expect(projects, `${relative(spec)} is a test file under test/`).toBeDefined()
      projects!.push(spec.project.name)
    }
    expect(projectsOf.size).toBeGreaterThan(100)
    expect([...projectsOf].filter(([, projects]) => projects.length !== 1)).toEqual([])
  })

  it("put the unit files that start threads, DuckDB or processes in the isolated unit project, and the list names only such files", () => {
    const isolated = specs.filter((spec) => spec.project.name === "unit-isolated").map(relative).sort()
    expect(isolated).toEqual([...UNIT_FILES_OF_THEIR_OWN].sort())
    for (const file of UNIT_FILES_OF_THEIR_OWN) {
      const text = readFileSync(path.join(root, file), "utf8")
      expect(OWN_PROCESS_SIGNS.filter(([, sign]) => sign.test(text)), `${file} is listed as starting something`).not.toEqual([])
    }
  })

  it("leave no file that starts a thread, DuckDB, a process or a database in a project whose files share a process", () => {
    const shared = specs.filter((spec) => spec.project.config.isolate === false)
    expect(shared.length).toBeGreaterThan(50)
    const offenders = shared.flatMap((spec) => {
      const text = readFileSync(spec.moduleId, "utf8")
      return OWN_PROCESS_SIGNS.filter(([, sign]) => sign.test(text)).map(([what]) => `${relative(spec)} ${what}`)
    })
    expect(offenders).toEqual([])
  })
})
