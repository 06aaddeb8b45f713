import { spawn } from "node:child_process"
import { writeFile } from "node:fs/promises"
import { createServer, type Server, type Socket } from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  ADMIN_DATABASE_URL,
  createTestDatabase,
  freePort,
  nodeArgsFor,
  removeDir,
  ROOT,
  runCli,
  runTs,
  startControl,
  tempDir
} from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/**
 * What an operator meets when a start cannot go on, or a command is mistyped: one line, at level
 * error, naming what to change, and the right exit code; a NATS nobody answers does not hold a
 * start up (the bus is reported degraded and keeps being tried).
 */

const jsonLines = (output: string) =>
  output.trim().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { level: string; message: string; fields?: unknown })

describe("a start that cannot go on says why in one line", () => {
  let dir: string
  beforeAll(async () => {
    dir = await tempDir()
  })
  afterAll(async () => {
    if (dir) await removeDir(dir)
  })

  it("names DATABASE_URL when its database does not exist, at level error, without a stack", { timeout: 120_000 }, async () => {
    const url = new URL(ADMIN_DATABASE_URL)
    url.pathname = "/ricochet_no_such_database"
    const control = runTs("cli/ricochet.ts", ["control"], {
      DATABASE_URL: url.toString(),
      NATS_URL: undefined,
      RICOCHET_DATA_DIR: dir,
      RICOCHET_API_PORT: String(await freePort()),
      RICOCHET_CONTROL_ADMIN_PORT: String(await freePort()),
      RICOCHET_LOG_FORMAT: "json"
    })
    expect(await control.exited, control.output()).toBe(1)
    const errors = jsonLines(control.output()).filter((line) => line.level === "error")
    expect(errors, control.output()).toHaveLength(1)
    expect(errors[0]!.message).toMatch(/^ricochet: DATABASE_URL: cannot open the database: .*ricochet_no_such_database.* does not exist/)
    expect(errors[0]!.fields).toBeUndefined()
    expect(control.output(), "no stack").not.toContain("    at ")
  })

  it("refuses a Node.js other than 20 with one line saying which is needed", { timeout: 60_000 }, async () => {
    // Node itself cannot be swapped here: the version it reports is, before anything loads.
    const preload = path.join(dir, "node22.mjs")
    await writeFile(preload, `Object.defineProperty(process.versions, "node", { value: "22.11.0" })\n`)
    const child = spawn(process.execPath, ["--import", preload, ...nodeArgsFor("main.ts")], {
      cwd: ROOT,
      env: { ...process.env, RICOCHET_DATA_DIR: dir },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (c) => (output += c))
    child.stderr.on("data", (c) => (output += c))
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
    expect(code).toBe(1)
    expect(output.trim().split("\n")).toEqual([expect.stringMatching(/^ricochet: Node\.js 20 \(20\.19 or newer\) is needed, this is 22\.11\.0: /)])
  })
})

describe("a NATS server nobody answers does not hold a start up", () => {
  let silent: Server
  let natsUrl: string
  const sockets = new Set<Socket>()
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dir: string

  beforeAll(async () => {
    // Accepts connections and never says a word: a NATS client waits for the server's INFO.
    silent = createServer((socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
    })
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    natsUrl = `nats://127.0.0.1:${(silent.address() as { port: number }).port}`
    db = await createTestDatabase()
    dir = await tempDir()
  })

  afterAll(async () => {
    for (const socket of sockets) socket.destroy()
    silent?.close()
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  it("starts control degraded (/readyz 200, bus disconnected), logs it once, and stops on SIGTERM", { timeout: 180_000 }, async () => {
    const control = await startControl({ DATABASE_URL: db.url, NATS_URL: natsUrl, RICOCHET_DATA_DIR: dir, RICOCHET_LOG_FORMAT: "json" }, true)
    const ready = await fetch(`${control.baseUrl}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ status: "degraded", database: "ok", bus: "disconnected" })
    // The API works meanwhile.
    expect((await fetch(`${control.baseUrl}/v1/links`, { headers: { authorization: `Bearer ${control.firstKey}` } })).status).toBe(200)
    await sleep(3_000)
    const busLines = jsonLines(control.output()).filter((line) => line.message.startsWith("change bus:"))
    expect(busLines.map((line) => line.message), control.output()).toEqual([expect.stringContaining("does not answer")])
    // The outbox publisher, which needs the bus, says once that it waits for it.
    expect(jsonLines(control.output()).filter((line) => line.message.startsWith("outbox publisher failed")).length).toBeLessThanOrEqual(1)
    const started = Date.now()
    expect(await control.stop()).toBe(0)
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("ends a start still waiting for its first NATS attempt within 10 s of SIGTERM", { timeout: 60_000 }, async () => {
    const control = runTs("cli/ricochet.ts", ["control"], {
      DATABASE_URL: db.url,
      NATS_URL: natsUrl,
      RICOCHET_DATA_DIR: dir,
      RICOCHET_API_PORT: String(await freePort()),
      RICOCHET_CONTROL_ADMIN_PORT: String(await freePort())
    })
    // Signalled in the middle of the start, once it is opening its connections.
    await expect.poll(() => control.output(), { timeout: 30_000, interval: 20 }).toContain("Connecting to PostgreSQL")
    const started = Date.now()
    control.child.kill("SIGTERM")
    await control.exited
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})

describe("the CLI's usage and the schema it works on", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dir: string
  let env: Record<string, string | undefined>

  beforeAll(async () => {
    db = await createTestDatabase()
    dir = await tempDir()
    env = { DATABASE_URL: db.url, NATS_URL: undefined, RICOCHET_DATA_DIR: dir }
  })
  afterAll(async () => {
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  it.each<readonly [ReadonlyArray<string>, number, RegExp]>([
    [["workspace", "create", "--help"], 0, /^Usage: ricochet workspace create --name NAME --plan/],
    [["user", "reset-password", "-h"], 0, /^Usage: ricochet user reset-password/],
    [["control", "--help"], 0, /^Usage: ricochet control\n/],
    [["engine", "--help"], 0, /^Usage: ricochet engine\n/],
    [["migrate", "--help"], 0, /^Usage: ricochet migrate/],
    [["user", "--help"], 0, /Usage: ricochet user create[\s\S]*Usage: ricochet user reset-password[\s\S]*Usage: ricochet user list/],
    [["--help"], 0, /^Usage:\n/],
    [["frobnicate"], 2, /^ricochet: unknown command "frobnicate"\nUsage:/],
    [["workspace", "frob"], 2, /^ricochet: unknown command "workspace frob"/],
    [["workspace"], 2, /^ricochet: workspace needs a command:/],
    [["workspace", "create", "--name", "x", "--plan", "gold"], 2, /--plan must be one of free, basic, pro, business, not "gold"/],
    [["workspace", "set-plan", "ws_x", "gold"], 2, /the plan must be one of free, basic, pro, business/],
    [["key", "create", "--workspace", "ws_x", "--role", "owner"], 2, /--role must be one of admin, member/],
    [["workspace", "create", "--name"], 2, /Usage: ricochet workspace create/],
    [["control", "now"], 2, /^ricochet: control takes no "now"/]
  ])("ricochet %j exits %i", { timeout: 60_000 }, async (args, code, output) => {
    const result = await runCli(args, env)
    expect(result.code, result.output).toBe(code)
    expect(result.output).toMatch(output)
  })

  it("never migrates PostgreSQL ahead of the controls: it refuses until `ricochet migrate` (or a control) has", { timeout: 120_000 }, async () => {
    const refused = await runCli(["workspace", "create", "--name", "Early", "--plan", "pro", "--json"], env)
    expect(refused.code, refused.output).toBe(1)
    expect(refused.output).toMatch(/the database is not at this version's schema \(missing 0001_initial, .*\): start a control of this version, or run `ricochet migrate`/)
    const migrated = await runCli(["migrate", "--json"], env)
    expect(migrated.code, migrated.output).toBe(0)
    expect(JSON.parse(migrated.output.trim().split("\n").pop()!).applied).toContain("0001_initial")
    const created = await runCli(["workspace", "create", "--name", "Early", "--plan", "pro", "--json"], env)
    expect(created.code, created.output).toBe(0)
    const again = await runCli(["migrate"], env)
    expect(again.output.trim()).toBe("Database up to date.")
  })
})
