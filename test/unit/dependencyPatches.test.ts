import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

/**
 * The fixes patches/apply.mjs makes to installed packages (postgres.js: a transaction whose
 * connection closed must neither end the process nor run on another connection) are in place in
 * the packages the tests run against, as npm's postinstall leaves them. Their behaviour is tested
 * in test/integration/postgresTransactionClose.test.ts.
 */
describe("patched dependencies", () => {
  it("every edit of patches/apply.mjs is applied to node_modules", () => {
    const root = path.resolve(import.meta.dirname, "../..")
    const check = spawnSync(process.execPath, [path.join(root, "patches/apply.mjs"), "--check"], { encoding: "utf8" })
    expect(check.stderr).toBe("")
    expect(check.status).toBe(0)
  })
})
