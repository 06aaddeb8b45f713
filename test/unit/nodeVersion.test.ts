import { describe, expect, it } from "vitest"
import { nodeVersionProblem } from "../../shared/startup/nodeVersion.ts"

describe("nodeVersionProblem: Node.js 20.19 and later 20.x only (uWebSockets.js 20.30's ABI)", () => {
  it.each<readonly [string, boolean]>([
    ["20.19.0", true],
    ["20.20.2", true],
    ["20.99.1", true],
    ["20.18.3", false],
    ["18.20.4", false],
    ["21.0.0", false],
    ["22.11.0", false],
    ["24.1.0", false]
  ])("%s runs: %s", (version, runs) => {
    const problem = nodeVersionProblem(version)
    if (runs) expect(problem).toBeUndefined()
    else expect(problem).toMatch(new RegExp(`^Node\\.js 20 \\(20\\.19 or newer\\) is needed, this is ${version.replace(/\./g, "\\.")}: `))
  })
})
