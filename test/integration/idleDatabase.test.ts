import { readFile } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sleep } from "../support/time.ts"
import { type ControlHandle, removeDir, ROOT, startControl, tempDir } from "../support/processes.ts"

/**
 * The embedded database runs every statement on the server's event loop, the one that answers the
 * API and, with RICOCHET_ENGINE_WORKERS=0, the redirects. An idle server's background jobs
 * (outbox publisher, webhook deliveries, import runners, the click feed) are woken by the commits
 * that give them work and poll only as a backstop: they asked ~60 statements a second before.
 */
describe("an idle npm start leaves its embedded database alone", () => {
  let dir: string
  let control: ControlHandle
  const countFile = () => path.join(dir, "pglite-statements")
  const statements = async () => Number(await readFile(countFile(), "utf8"))

  beforeAll(async () => {
    dir = await tempDir("ricochet-idle-")
    control = await startControl({
      RICOCHET_DATA_DIR: path.join(dir, "data"),
      DATABASE_URL: undefined,
      NATS_URL: undefined,
      RICOCHET_ENGINE_WORKERS: "0",
      RICOCHET_TEST_PGLITE_COUNT: countFile(),
      NODE_OPTIONS: `--import ${path.join(ROOT, "test/support/pgliteStatements.mjs")}`
    })
  })
  afterAll(async () => {
    await control?.stop()
    await removeDir(dir)
  })

  it("runs a few statements a second at most, not one per job per quarter second", async () => {
    // Past the first rounds of every job after the start.
    await sleep(2_000)
    const before = await statements()
    await sleep(10_000)
    const during = (await statements()) - before
    // The backstops (5 s) and the domain checks still run: the counter is seen counting.
    expect(during).toBeGreaterThan(0)
    expect(during, "statements in 10 idle seconds").toBeLessThanOrEqual(100)
  })
})
