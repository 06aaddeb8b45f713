import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type ControlHandle,
  createTestDatabase,
  freePort,
  removeDir,
  type RunningProcess,
  runTs,
  startControl,
  startEngineProcess,
  startNats,
  tempDir
} from "../support/processes.ts"

/**
 * One engine per engine id. Two engines with the same RICOCHET_ENGINE_ID write click files of
 * the same names and one's clicks are lost without a word (40,007 of 118,148 when it was tried):
 * the second is refused at its start, with one line naming the id, whether it shares the first
 * one's spool directory (this machine) or not (another machine, found through NATS).
 */

const refusal = (output: string) => output.split("\n").filter((line) => line.includes("RICOCHET_ENGINE_ID"))

describe("engine ids are held by one engine at a time", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let nats: Awaited<ReturnType<typeof startNats>>
  let control: ControlHandle
  let root: string
  let env: Record<string, string | undefined>
  const running: Array<RunningProcess> = []

  /** An engine process that may or may not start: its own ports, the given spool directory. */
  const engine = async (spool: string, extra: Record<string, string | undefined> = {}) => {
    const proc = runTs("cli/ricochet.ts", ["engine"], {
      ...env,
      RICOCHET_SPOOL_DIR: spool,
      RICOCHET_ENGINE_PORT: String(await freePort()),
      RICOCHET_ENGINE_ADMIN_PORT: String(await freePort()),
      RICOCHET_LISTEN_HOST: "127.0.0.1",
      ...extra
    })
    running.push(proc)
    return proc
  }

  const exitWithin = (proc: RunningProcess, ms: number) =>
    Promise.race([proc.exited, new Promise<"running">((resolve) => setTimeout(() => resolve("running"), ms))])

  beforeAll(async () => {
    root = await tempDir()
    db = await createTestDatabase()
    nats = await startNats(undefined, { jetStreamDir: path.join(root, "jetstream") })
    env = {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      RICOCHET_DATA_DIR: path.join(root, "data"),
      RICOCHET_CLICKS_DIR: path.join(root, "clicks"),
      RICOCHET_ENGINE_ID: `edge-${Date.now().toString(36)}`,
      RICOCHET_LOG_FORMAT: "json"
    }
    control = await startControl(env, true)
  }, 180_000)

  afterAll(async () => {
    await Promise.all(running.map((proc) => proc.stop("SIGKILL")))
    await control?.stop()
    await nats?.stop()
    await db?.drop()
    if (root) await removeDir(root)
  })

  it("refuses a second engine with the same id: on another spool directory through NATS, on the same one through its lock", async () => {
    const first = await startEngineProcess({ ...env, RICOCHET_SPOOL_DIR: path.join(root, "spool-a") })
    running.push(first)

    // Another machine, in effect: its own spool directory, the same NATS.
    const elsewhere = await engine(path.join(root, "spool-b"))
    expect(await exitWithin(elsewhere, 60_000), elsewhere.output()).toBe(1)
    const [line] = refusal(elsewhere.output())
    expect(line, elsewhere.output()).toContain(env.RICOCHET_ENGINE_ID)
    expect(JSON.parse(line!)).toMatchObject({ level: "error" })
    expect(elsewhere.output(), "no stack").not.toContain("    at ")

    // The same machine and spool directory, without NATS: the spool directory's lock refuses it.
    const beside = await engine(path.join(root, "spool-a"), { NATS_URL: undefined })
    expect(await exitWithin(beside, 60_000), beside.output()).toBe(1)
    expect(refusal(beside.output()).join("\n"), beside.output()).toMatch(new RegExp(`${env.RICOCHET_ENGINE_ID}.*pid ${first.child.pid}`))

    // The first one never noticed: it still answers.
    expect((await fetch(`${first.baseUrl}/.well-known/ricochet/status`)).status).toBe(200)
    await first.stop()
  }, 240_000)

  it("lets an engine killed with SIGKILL start again at once, on the same spool directory", async () => {
    const spool = path.join(root, "spool-c")
    const extra = { RICOCHET_ENGINE_ID: `${env.RICOCHET_ENGINE_ID}-c` }
    const killed = await startEngineProcess({ ...env, ...extra, RICOCHET_SPOOL_DIR: spool })
    running.push(killed)
    await killed.stop("SIGKILL")
    // Its lock file and its NATS entry both still name it; both are its own earlier life.
    const again = await startEngineProcess({ ...env, ...extra, RICOCHET_SPOOL_DIR: spool })
    running.push(again)
    expect((await fetch(`${again.baseUrl}/.well-known/ricochet/status`)).status).toBe(200)
    // A graceful stop gives the id back: another machine may take it over.
    await again.stop()
    const successor = await startEngineProcess({ ...env, ...extra, RICOCHET_SPOOL_DIR: path.join(root, "spool-d") })
    running.push(successor)
    await successor.stop()
  }, 240_000)

  it("stops the later of two engines that took one id while NATS was away, once it is back", async () => {
    const id = `${env.RICOCHET_ENGINE_ID}-e`
    const first = await startEngineProcess({ ...env, RICOCHET_ENGINE_ID: id, RICOCHET_SPOOL_DIR: path.join(root, "spool-e") })
    running.push(first)
    await nats.stop()
    const second = await engine(path.join(root, "spool-f"), { RICOCHET_ENGINE_ID: id })
    // It starts, degraded: NATS does not answer, so the id cannot be checked yet.
    await expect.poll(() => second.output(), { timeout: 60_000 }).toContain("Ricochet engine: redirects on")
    nats = await startNats(nats.port, { jetStreamDir: path.join(root, "jetstream") })
    // Once NATS answers, one of them finds the other holding the id and stops with the line; the other goes on.
    const ended = await Promise.race([
      first.exited.then((code) => ({ who: first, code })),
      second.exited.then((code) => ({ who: second, code }))
    ])
    expect(ended.code).toBe(1)
    expect(refusal(ended.who.output()).join("\n")).toContain(id)
    const survivor = ended.who === first ? second : first
    expect(survivor.child.exitCode).toBeNull()
  }, 240_000)
})
