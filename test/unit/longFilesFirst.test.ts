import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { TestSpecification, Vitest } from "vitest/node"
import LongFilesFirst from "../support/longFilesFirst.ts"

const root = "/repo"

/** What the sequencer reads of a project: its name, whether its files share a process, the root. */
const project = (name: string, isolate: boolean) => ({ name, config: { root, isolate, sequence: { groupOrder: 0 } } })
const unit = project("unit", false)
const unitIsolated = project("unit-isolated", true)
const integration = project("integration", true)
const browser = project("browser", true)

const spec = (of: ReturnType<typeof project>, file: string) => ({ project: of, moduleId: path.join(root, file) }) as unknown as TestSpecification

/** A sequencer over vitest's record of the last run: milliseconds by `project:file`, no record when absent. */
const sequencer = (took: Record<string, number>, sequence: Record<string, unknown> = {}) =>
  new LongFilesFirst({
    config: { root, sequence },
    cache: {
      getFileTestResults: (key: string) => (key in took ? { duration: took[key], failed: false } : undefined),
      getFileStats: () => ({ size: 100 })
    }
  } as unknown as Vitest)

const files = [
  spec(unit, "test/unit/a.test.ts"),
  spec(integration, "test/integration/short.test.ts"),
  spec(unitIsolated, "test/unit/slowThreads.test.ts"),
  spec(unit, "test/unit/b.test.ts"),
  spec(browser, "test/browser/dashboard.test.ts"),
  spec(integration, "test/integration/webhooks.test.ts"),
  spec(unitIsolated, "test/unit/quickDuckDb.test.ts")
]
const names = (sorted: ReadonlyArray<TestSpecification>) => sorted.map((s) => `${s.project.name}:${path.relative(root, s.moduleId)}`)

describe("LongFilesFirst", () => {
  it("starts the long files, then the files with a process each by how long they took across projects, then the shared-process files together", async () => {
    const sorted = await sequencer({
      "integration:test/integration/short.test.ts": 2_000,
      "unit-isolated:test/unit/slowThreads.test.ts": 90_000,
      "unit-isolated:test/unit/quickDuckDb.test.ts": 800,
      "unit:test/unit/a.test.ts": 50,
      "unit:test/unit/b.test.ts": 900
    }).sort(files)
    expect(names(sorted)).toEqual([
      "browser:test/browser/dashboard.test.ts",
      "integration:test/integration/webhooks.test.ts",
      "unit-isolated:test/unit/slowThreads.test.ts",
      "integration:test/integration/short.test.ts",
      "unit-isolated:test/unit/quickDuckDb.test.ts",
      "unit:test/unit/b.test.ts",
      "unit:test/unit/a.test.ts"
    ])
  })

  it("shuffles every file under --sequence.shuffle, the same way for the same seed", async () => {
    const orders = await Promise.all([1, 1, 2, 3, 4].map((seed) => sequencer({}, { shuffle: true, seed }).sort(files).then(names)))
    for (const order of orders) expect([...order].sort()).toEqual([...names(files)].sort())
    expect(orders[1]).toEqual(orders[0])
    expect(new Set(orders.map((order) => order.join())).size).toBeGreaterThan(2)
  })
})
