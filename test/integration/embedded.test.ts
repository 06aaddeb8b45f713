import { existsSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import {
  apiClient,
  createKey,
  createTestDatabase,
  createWorkspace,
  freePort,
  removeDir,
  runCli,
  runTs,
  startControl,
  tempDir
} from "../support/processes.ts"

/** `npm start` with nothing configured: PGlite under the data directory, first-start provisioning. */
describe("embedded default", () => {
  const dirs: Array<string> = []
  afterAll(async () => {
    await Promise.all(dirs.map(removeDir))
  })

  it("creates a pro workspace on first start, keeps data across restarts, and provisions through the CLI while running", async () => {
    const dir = await tempDir()
    dirs.push(dir)
    const env = { RICOCHET_DATA_DIR: dir, DATABASE_URL: undefined, NATS_URL: undefined }
    const first = await startControl(env)
    expect(first.firstKey).toMatch(/^rico_[0-9A-Za-z]{24,}$/)
    expect(first.output()).toMatch(/API:\s+http:\/\/127\.0\.0\.1:\d+\/v1\n/)
    const api = apiClient(first.baseUrl, first.firstKey)
    const link = await api.post("/v1/links", { url: "https://example.com/kept", slug: "kept" })
    expect(link.status).toBe(201)
    expect(link.body.domain).toBe("my-workspace.localhost")
    // No scheme configured on the embedded default: the link opens on this machine's engine.
    expect(link.body.shortLink).toBe(`http://my-workspace.localhost:${first.env.RICOCHET_ENGINE_PORT}/kept`)

    // The CLI reaches the running server's data while it holds the only database connection.
    const other = await createWorkspace(first.env, "business", "Acme Inc")
    expect(other.workspace).toMatchObject({ name: "Acme Inc", slug: "acme-inc", plan: "business" })
    expect(Object.keys(other.workspace).sort()).toEqual(["id", "name", "plan", "slug"])
    expect(other.domain).toBe("acme-inc.localhost")
    const member = await createKey(first.env, other.workspace.id, "member")
    expect(member.role).toBe("member")
    expect((await apiClient(first.baseUrl, member.apiKey).get("/v1/links")).status).toBe(200)
    expect((await apiClient(first.baseUrl, other.apiKey).get("/v1/links")).body.data).toEqual([])

    expect(await first.stop("SIGTERM")).toBe(0)

    const second = await startControl({ ...env, RICOCHET_API_PORT: first.env.RICOCHET_API_PORT })
    try {
      expect(second.firstKey).toBeUndefined()
      const again = await apiClient(second.baseUrl, first.firstKey).get("/v1/links/info?domain=my-workspace.localhost&slug=kept")
      expect(again.status).toBe(200)
      expect(again.body.id).toBe(link.body.id)
      expect((await apiClient(second.baseUrl, member.apiKey).get("/v1/tags")).status).toBe(200)
    } finally {
      expect(await second.stop("SIGTERM")).toBe(0)
    }
  }, 240_000)

  it("refuses to start on a taken port in one line, before anything is written", async () => {
    const holder = createServer()
    const port = await new Promise<number>((resolve) => holder.listen(0, "127.0.0.1", () => resolve((holder.address() as AddressInfo).port)))
    const dir = path.join(await tempDir(), "data")
    dirs.push(path.dirname(dir))
    try {
      const start = runTs("main.ts", [], {
        RICOCHET_DATA_DIR: dir,
        DATABASE_URL: undefined,
        RICOCHET_LISTEN_HOST: "127.0.0.1",
        RICOCHET_API_PORT: String(await freePort()),
        RICOCHET_ENGINE_ADMIN_PORT: String(await freePort()),
        RICOCHET_CONTROL_ADMIN_PORT: String(await freePort()),
        RICOCHET_ENGINE_PORT: String(port)
      })
      expect(await start.exited).toBe(1)
      expect(start.output().trim()).toBe(`ricochet: port ${port} (short links) is already in use on 127.0.0.1; set RICOCHET_ENGINE_PORT to another port`)
      expect(existsSync(dir)).toBe(false)
    } finally {
      holder.close()
    }
  }, 60_000)

  it.each([
    ["control", "RICOCHET_API_PORT", "API", {}],
    ["control", "RICOCHET_CONTROL_ADMIN_PORT", "control health and metrics", {}],
    ["engine", "RICOCHET_ENGINE_PORT", "short links", { DATABASE_URL: "postgres://127.0.0.1:1/never" }],
    ["engine", "RICOCHET_ENGINE_ADMIN_PORT", "engine health and metrics", { DATABASE_URL: "postgres://127.0.0.1:1/never" }]
  ] as const)("ricochet %s alone refuses a taken %s in one line, before anything is written", async (role, variable, what, env) => {
    const holder = createServer()
    const port = await new Promise<number>((resolve) => holder.listen(0, "127.0.0.1", () => resolve((holder.address() as AddressInfo).port)))
    const dir = path.join(await tempDir(), "data")
    dirs.push(path.dirname(dir))
    try {
      const start = runTs("cli/ricochet.ts", [role], {
        RICOCHET_DATA_DIR: dir,
        DATABASE_URL: undefined,
        NATS_URL: undefined,
        RICOCHET_LISTEN_HOST: "127.0.0.1",
        RICOCHET_API_PORT: String(await freePort()),
        RICOCHET_ENGINE_PORT: String(await freePort()),
        RICOCHET_ENGINE_ADMIN_PORT: String(await freePort()),
        RICOCHET_CONTROL_ADMIN_PORT: String(await freePort()),
        ...env,
        [variable]: String(port)
      })
      expect(await start.exited).toBe(1)
      expect(start.output().trim()).toBe(`ricochet: port ${port} (${what}) is already in use on 127.0.0.1; set ${variable} to another port`)
      expect(existsSync(dir)).toBe(false)
    } finally {
      holder.close()
    }
  }, 60_000)

  it("provisions with the CLI when no server is running", async () => {
    const dir = await tempDir()
    dirs.push(dir)
    const env = { RICOCHET_DATA_DIR: dir, DATABASE_URL: undefined }
    const created = await createWorkspace(env, "pro", "Offline")
    expect(created.apiKey).toMatch(/^rico_/)
    // What a start finds in the data directory is control's business: no engine needed.
    const control = await startControl(env, true)
    try {
      // The workspace made offline counts: no first-start workspace is added.
      expect(control.firstKey).toBeUndefined()
      expect((await apiClient(control.baseUrl, created.apiKey).get("/v1/folders")).status).toBe(200)
    } finally {
      await control.stop()
    }
  })
})

describe("provisioning CLI against PostgreSQL", () => {
  it("creates workspaces and keys with --json output, and rejects bad arguments", async () => {
    const db = await createTestDatabase()
    try {
      const env = { DATABASE_URL: db.url }
      // The CLI works on a database at this version's schema: what a control (or this) applies.
      expect((await runCli(["migrate"], env)).code).toBe(0)
      const ws = await createWorkspace(env, "basic", "Béta Co")
      expect(ws.workspace.slug).toBe("beta-co")
      expect(ws.workspace.plan).toBe("basic")
      const twin = await createWorkspace(env, "basic", "Béta Co")
      expect(twin.workspace.slug).not.toBe(ws.workspace.slug)
      const key = await createKey(env, ws.workspace.id, "admin")
      expect(key).toEqual({ apiKey: expect.stringMatching(/^rico_[0-9A-Za-z]{24,}$/), role: "admin" })

      const badPlan = await runCli(["workspace", "create", "--name", "x", "--plan", "gold", "--json"], env)
      expect(badPlan.code).not.toBe(0)
      expect(badPlan.output).toMatch(/--plan must be one of free, basic, pro, business/)
      const badRole = await runCli(["key", "create", "--workspace", ws.workspace.id, "--role", "owner"], env)
      expect(badRole.code).not.toBe(0)
      const unknown = await runCli(["key", "create", "--workspace", "ws_nope", "--role", "admin"], env)
      expect(unknown.code).not.toBe(0)
      expect(unknown.output).toMatch(/No workspace with id ws_nope/)
    } finally {
      await db.drop()
    }
  })
})

describe("configuration errors", () => {
  it.each([
    ["RICOCHET_API_PORT", "abc"],
    ["RICOCHET_ENGINE_PORT", "70000"],
    ["RICOCHET_LINK_SCHEME", "ftp"],
    ["RICOCHET_SHORT_DOMAIN", "not a host"],
    ["DATABASE_URL", "mysql://localhost/x"]
  ])("%s=%s: one line naming the variable, non-zero exit", async (variable, value) => {
    const proc = runTs("main.ts", [], { RICOCHET_DATA_DIR: "/tmp/ricochet-never-created", [variable]: value })
    const code = await proc.exited
    expect(code).not.toBe(0)
    const lines = proc.output().split("\n").filter((l) => l.trim() !== "")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(variable)
  })
})
