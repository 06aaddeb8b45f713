import { spawn } from "node:child_process"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ControlHandle, createTestDatabase, removeDir, ROOT, startControl, startEngineProcess, tempDir } from "../support/processes.ts"

/**
 * The image's health check (cli/healthcheck.mjs) against real servers: pointed at the process a
 * `ricochet control` or `ricochet engine` runs in (as PID 1 is in a container), with that
 * process's environment, it probes the readiness of that role and exits 0; 1 with a line naming
 * what did not answer otherwise.
 */

const check = (pid: number, env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "cli/healthcheck.mjs"), String(pid)], { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout!.on("data", (chunk) => (output += chunk))
    child.stderr!.on("data", (chunk) => (output += chunk))
    child.once("exit", (code) => resolve({ code, output }))
  })

describe("cli/healthcheck.mjs", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dir: string
  let control: ControlHandle
  let engine: Awaited<ReturnType<typeof startEngineProcess>>

  beforeAll(async () => {
    db = await createTestDatabase()
    dir = await tempDir("ricochet-health-")
    const env = { DATABASE_URL: db.url, NATS_URL: undefined, RICOCHET_DATA_DIR: dir }
    control = await startControl(env, true)
    engine = await startEngineProcess({ ...env, RICOCHET_ENGINE_WORKERS: "1" })
  }, 120_000)

  afterAll(async () => {
    await engine?.stop()
    await control?.stop()
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  it("is healthy for a ready control: its /readyz on the API port", async () => {
    expect(await check(control.child.pid!, control.env)).toEqual({ code: 0, output: "" })
  })

  it("is healthy for a ready engine: its /readyz on the operator port", async () => {
    expect(await check(engine.child.pid!, engine.env)).toEqual({ code: 0, output: "" })
  })

  it("is unhealthy, saying which, when the role's port does not answer", async () => {
    // The engine's settings for the control process: its API port is not where the check looks.
    const wrong = await check(control.child.pid!, { ...control.env, RICOCHET_API_PORT: engine.env.RICOCHET_ENGINE_PORT })
    expect(wrong.code).toBe(1)
    expect(wrong.output).toContain(`control not ready: http://127.0.0.1:${engine.env.RICOCHET_ENGINE_PORT}/readyz answered 404`)
    const closed = await check(engine.child.pid!, { ...engine.env, RICOCHET_ENGINE_ADMIN_PORT: "1" })
    expect(closed.code).toBe(1)
    expect(closed.output).toMatch(/^engine not ready: http:\/\/127\.0\.0\.1:1\/readyz did not answer/)
  })

  it("is unhealthy once the server process is gone", async () => {
    const pid = engine.child.pid!
    expect(await engine.stop("SIGTERM")).toBe(0)
    const gone = await check(pid, engine.env)
    expect(gone.code).toBe(1)
  })
})
