import { existsSync } from "node:fs"
import { rm, writeFile } from "node:fs/promises"
import { hostname } from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LOCK_FILE } from "../../shared/startup/directoryLock.ts"
import { type ControlHandle, freePort, removeDir, runCli, runTs, startControl, tempDir } from "../support/processes.ts"

/**
 * One process at a time on an embedded data directory. A second `npm start` on the same
 * directory once started without complaint, deleted the first server's admin channel file when it
 * stopped, and the CLI then opened the database behind the running server: a key the server
 * rejected, a workspace gone after a restart. Now the second start exits with one line naming the
 * directory, and the CLI goes through the running server or refuses.
 */
describe("the embedded data directory is held by one process", () => {
  let dir: string
  let first: ControlHandle

  const listWorkspaces = () => runCli(["workspace", "list", "--json"], { RICOCHET_DATA_DIR: dir, DATABASE_URL: undefined, NATS_URL: undefined })

  beforeAll(async () => {
    dir = await tempDir()
    first = await startControl({ RICOCHET_DATA_DIR: dir, DATABASE_URL: undefined, NATS_URL: undefined })
  }, 180_000)

  afterAll(async () => {
    await first?.stop()
    if (dir) await removeDir(dir)
  })

  it("refuses a second npm start on the same directory with one line; the first keeps its admin channel", { timeout: 180_000 }, async () => {
    const second = runTs("main.ts", [], {
      RICOCHET_DATA_DIR: dir,
      DATABASE_URL: undefined,
      NATS_URL: undefined,
      RICOCHET_API_PORT: String(await freePort()),
      RICOCHET_ENGINE_PORT: String(await freePort()),
      RICOCHET_ENGINE_ADMIN_PORT: String(await freePort()),
      RICOCHET_CONTROL_ADMIN_PORT: String(await freePort()),
      RICOCHET_LISTEN_HOST: "127.0.0.1",
      RICOCHET_LOG_FORMAT: "json"
    })
    expect(await second.exited, second.output()).toBe(1)
    const lines = second.output().trim().split("\n").map((line) => JSON.parse(line) as { level: string; message: string })
    const errors = lines.filter((line) => line.level === "error")
    expect(errors, second.output()).toHaveLength(1)
    expect(errors[0]!.message).toContain(`the data directory ${dir} is in use`)
    expect(errors[0]!.message).toContain(`pid ${first.child.pid}`)
    expect(second.output(), "no stack").not.toContain("    at ")

    // Nothing of the first was touched: its channel file is there and the CLI goes through it.
    expect(existsSync(path.join(dir, "run", "admin.json"))).toBe(true)
    const listed = await listWorkspaces()
    expect(listed.code, listed.output).toBe(0)
    expect(JSON.parse(listed.output.trim().split("\n").pop()!).data).toHaveLength(1)
  })

  it("refuses the CLI when a server holds the directory and its channel does not answer", { timeout: 120_000 }, async () => {
    // As while a server is still starting: it holds the directory, its channel is not up yet.
    const channel = path.join(dir, "run", "admin.json")
    const saved = await import("node:fs/promises").then((fs) => fs.readFile(channel, "utf8"))
    await rm(channel)
    try {
      const refused = await listWorkspaces()
      expect(refused.code).toBe(1)
      expect(refused.output).toMatch(new RegExp(`in use by another Ricochet process .*pid ${first.child.pid}.*admin channel does not answer`))
    } finally {
      await writeFile(channel, saved, { mode: 0o600 })
    }
    // The server's data is intact and still its own.
    expect((await fetch(`${first.baseUrl}/v1/links`, { headers: { authorization: `Bearer ${first.firstKey}` } })).status).toBe(200)
  })

  it("once the server has stopped, the CLI opens the directory itself; a lock left by a dead process is taken over", { timeout: 180_000 }, async () => {
    await first.stop()
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false)
    // A lock file left by a process that no longer exists (a crash, a power cut).
    await writeFile(path.join(dir, LOCK_FILE), JSON.stringify({
      pid: 2 ** 22 - 1, host: hostname(), bootId: undefined, startTicks: undefined, since: "2020-01-01T00:00:00.000Z", token: "dead", what: "a Ricochet server"
    }))
    const listed = await listWorkspaces()
    expect(listed.code, listed.output).toBe(0)
    expect(JSON.parse(listed.output.trim().split("\n").pop()!).data).toHaveLength(1)
    first = await startControl({ RICOCHET_DATA_DIR: dir, DATABASE_URL: undefined, NATS_URL: undefined })
  })
})
