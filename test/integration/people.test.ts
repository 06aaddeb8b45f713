import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  createWorkspace,
  removeDir,
  runCli,
  runCliPiped,
  startControl,
  tempDir
} from "../support/processes.ts"
import { type Answer, type BrowserRequest, signedInClient } from "../support/signedIn.ts"

/**
 * People, sessions and keys over HTTP and the CLI, against PostgreSQL and the embedded default:
 * the first start's admin signs in, the cookie's flags, wrong passwords limited, CSRF, switching
 * workspace, members against admins, keys created, listed, read-only and revoked.
 */

const ADMIN_EMAIL = "owner@example.test"

describe.each([["postgres"], ["embedded"]] as const)("people, sessions and keys over %s", (backend) => {
  let ctl: ControlHandle
  let dir: string
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined
  let workspaceId: string
  let adminPassword: string
  let adminKey: string

  const web = () => signedInClient(ctl.baseUrl)
  const browser = (method: string, path: string, options?: BrowserRequest) => web().request(method, path, options)
  const cookieOf = (res: Answer) => web().cookieOf(res)
  const signIn = (email: string, password: string, extra: Record<string, unknown> = {}) => web().signIn(email, password, extra)

  const cli = (args: ReadonlyArray<string>) => runCli(args, ctl.env)

  const pipedCli = (args: ReadonlyArray<string>, stdin: string) => runCliPiped(args, ctl.env, stdin)

  beforeAll(async () => {
    dir = await tempDir()
    const common = { RICOCHET_SHORT_DOMAIN: "people.test", RICOCHET_LINK_SCHEME: "https", NATS_URL: undefined, RICOCHET_DATA_DIR: dir, RICOCHET_ADMIN_EMAIL: ADMIN_EMAIL }
    if (backend === "postgres") {
      db = await createTestDatabase()
      ctl = await startControl({ ...common, DATABASE_URL: db.url }, true)
    } else {
      ctl = await startControl({ ...common, DATABASE_URL: undefined }, true)
    }
    const out = ctl.output()
    workspaceId = /Created workspace "[^"]*" \((ws_\w+), plan pro\)/.exec(out)![1]
    const signInLine = /Sign in at (\S+) as (\S+), one-time password \(shown once\): (\S+)/.exec(out)
    if (signInLine === null || ctl.firstKey === undefined) throw new Error(`first start printed no sign-in:\n${out}`)
    expect(signInLine[1]).toBe(`${ctl.baseUrl}/`)
    expect(signInLine[2]).toBe(ADMIN_EMAIL)
    adminKey = ctl.firstKey
    // The printed password is one-time (oneTimePassword.test.ts): replaced first, as a person does.
    const first = await signIn(ADMIN_EMAIL, signInLine[3])
    adminPassword = "the admin's own password"
    const changed = await browser("POST", "/v1/me/password", { cookie: cookieOf(first), body: { currentPassword: signInLine[3], newPassword: adminPassword } })
    if (changed.status !== 200) throw new Error(`password change: ${changed.status} ${JSON.stringify(changed.body)}`)
  }, 180_000)

  afterAll(async () => {
    await ctl?.stop()
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  it("signs the first start's admin in with an HttpOnly, SameSite=Lax, Secure cookie, then out", async () => {
    const res = await signIn(ADMIN_EMAIL.toUpperCase(), adminPassword)
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      user: { id: expect.stringMatching(/^usr_/), email: ADMIN_EMAIL },
      workspace: { id: workspaceId, name: "My workspace", plan: "pro" },
      role: "admin",
      workspaces: [{ id: workspaceId, name: "My workspace", plan: "pro", role: "admin" }],
      mustChangePassword: false
    })
    const setCookie = res.headers.get("set-cookie")!
    expect(setCookie).toMatch(/^ricochet_session=[0-9A-Za-z]{43}; /)
    expect(setCookie.split("; ").slice(1).sort()).toEqual(["HttpOnly", "Path=/", "SameSite=Lax", "Secure"])
    const cookie = cookieOf(res)

    expect((await browser("GET", "/v1/sessions/current", { cookie })).body.user.email).toBe(ADMIN_EMAIL)
    const link = await browser("POST", "/v1/links", { cookie, body: { url: "https://example.com/signed-in" } })
    expect(link.status).toBe(201)

    const out = await browser("DELETE", "/v1/sessions/current", { cookie })
    expect(out.status).toBe(200)
    expect(out.body).toEqual({ signedOut: true })
    expect(out.headers.get("set-cookie")).toMatch(/^ricochet_session=; .*Max-Age=0/)
    const after = await browser("GET", "/v1/sessions/current", { cookie })
    expect(after.status).toBe(401)
    expect(after.body.error.code).toBe("unauthorized")
  })

  it("answers 401 without a session and for a key on /sessions/current", async () => {
    expect((await browser("GET", "/v1/sessions/current")).status).toBe(401)
    const res = await apiClient(ctl.baseUrl, adminKey).get("/v1/sessions/current")
    expect(res.status).toBe(401)
    expect(res.body.error.code).toBe("unauthorized")
  })

  it("refuses a cookie session's unsafe request without this site's Origin (CSRF), never a key's", async () => {
    const cookie = cookieOf(await signIn(ADMIN_EMAIL, adminPassword))
    for (const bad of [null, "https://evil.example", "null"]) {
      const res = await browser("POST", "/v1/tags", { cookie, origin: bad, body: { name: `csrf-${String(bad)}` } })
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: "forbidden" })
    }
    expect((await browser("GET", "/v1/tags", { cookie, origin: null })).status).toBe(200)
    expect((await browser("POST", "/v1/tags", { cookie, body: { name: "csrf-ok" } })).status).toBe(201)
    const keyed = await apiClient(ctl.baseUrl, adminKey).post("/v1/tags", { name: "csrf-key" })
    expect(keyed.status).toBe(201)
  })

  it("validates the sign-in body with the spec's error body", async () => {
    const res = await browser("POST", "/v1/sessions", { body: { email: ADMIN_EMAIL } })
    expect(res.status).toBe(422)
    expect(res.body.error).toMatchObject({ code: "unprocessable_entity", issues: [expect.objectContaining({ path: ["password"] })] })
    const bad = await fetch(`${ctl.baseUrl}/v1/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" })
    expect(bad.status).toBe(400)
  })

  // The wrong-password limit: minuteWindows.test.ts, on a clock it moves.

  it("switches the session between the user's workspaces, and not to others", { timeout: 240_000 }, async () => {
    const other = await createWorkspace(ctl.env, "free", "Second")
    const stranger = await createWorkspace(ctl.env, "pro", "Not mine")
    const added = await cli(["user", "create", "--email", ADMIN_EMAIL, "--workspace", other.workspace.id, "--role", "member", "--json"])
    expect(added.code, added.output).toBe(0)
    expect(JSON.parse(added.output.trim().split("\n").pop()!)).toMatchObject({ created: false, role: "member" })

    const cookie = cookieOf(await signIn(ADMIN_EMAIL, adminPassword))
    const switched = await browser("PATCH", "/v1/sessions/current", { cookie, body: { workspaceId: other.workspace.id } })
    expect(switched.status).toBe(200)
    expect(switched.body).toMatchObject({ workspace: { id: other.workspace.id, plan: "free" }, role: "member" })
    expect(switched.body.workspaces).toHaveLength(2)

    // A free workspace through the session: links yes (plans gate keys), admin-only things no.
    const link = await browser("POST", "/v1/links", { cookie, body: { url: "https://example.com/free" } })
    expect(link.status).toBe(201)
    expect((await browser("GET", "/v1/links", { cookie })).body.data.map((l: any) => l.id)).toEqual([link.body.id])
    expect((await browser("GET", "/v1/keys", { cookie })).status).toBe(403)
    const freeKey = await apiClient(ctl.baseUrl, other.apiKey).get("/v1/links")
    expect(freeKey.body.error.code).toBe("plan_required")

    const refused = await browser("PATCH", "/v1/sessions/current", { cookie, body: { workspaceId: stranger.workspace.id } })
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 404, code: "not_found" })
    const back = await browser("PATCH", "/v1/sessions/current", { cookie, body: { workspaceId } })
    expect(back.body).toMatchObject({ workspace: { id: workspaceId }, role: "admin" })

    const direct = await signIn(ADMIN_EMAIL, adminPassword, { workspaceId: other.workspace.id })
    expect(direct.body.workspace.id).toBe(other.workspace.id)
    const notMine = await signIn(ADMIN_EMAIL, adminPassword, { workspaceId: stranger.workspace.id })
    expect(notMine.status).toBe(404)
  })

  it("creates, lists and revokes keys (admins only); a read key may only GET; a revoked key is refused at once", async () => {
    const admin = apiClient(ctl.baseUrl, adminKey)
    const created = await admin.post("/v1/keys", { name: "Reporting", role: "member", scope: "read" })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.stringMatching(/^key_/),
      name: "Reporting",
      prefix: created.body.key.slice(0, 9),
      role: "member",
      scope: "read",
      createdBy: { id: expect.stringMatching(/^usr_/), email: ADMIN_EMAIL },
      createdAt: expect.any(String),
      lastUsedAt: null,
      key: expect.stringMatching(/^rico_[0-9A-Za-z]{32}$/)
    })
    const readKey = apiClient(ctl.baseUrl, created.body.key)
    expect((await readKey.get("/v1/links")).status).toBe(200)
    for (const res of [await readKey.post("/v1/tags", { name: "nope" }), await readKey.delete(`/v1/keys/${created.body.id}`)]) {
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: "forbidden" })
    }
    expect((await readKey.get("/v1/keys")).status).toBe(403)

    const listed = await admin.get("/v1/keys")
    expect(listed.status).toBe(200)
    const entry = listed.body.data.find((k: any) => k.id === created.body.id)
    expect(entry).toMatchObject({ name: "Reporting", scope: "read", lastUsedAt: expect.any(String) })
    expect(entry).not.toHaveProperty("key")
    expect(listed.body.data.find((k: any) => k.prefix === adminKey.slice(0, 9))).toMatchObject({ name: "First key", role: "admin", createdBy: { email: ADMIN_EMAIL } })

    const memberKey = await admin.post("/v1/keys", { name: "Writer", role: "member" })
    expect(memberKey.body.scope).toBe("all")
    const member = apiClient(ctl.baseUrl, memberKey.body.key)
    expect((await member.post("/v1/tags", { name: "member-tag" })).status).toBe(201)
    for (const res of [await member.get("/v1/keys"), await member.post("/v1/keys", { name: "x", role: "admin" })]) {
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: "forbidden" })
    }

    const invalid = await admin.post("/v1/keys", { name: "", role: "owner" })
    expect(invalid.status).toBe(422)
    expect([...new Set(invalid.body.error.issues.map((i: any) => i.path[0]))].sort()).toEqual(["name", "role"])

    const revoked = await admin.delete(`/v1/keys/${created.body.id}`)
    expect(revoked).toMatchObject({ status: 200, body: { id: created.body.id } })
    expect((await readKey.get("/v1/links")).status).toBe(401)
    expect((await admin.delete(`/v1/keys/${created.body.id}`)).status).toBe(404)
    expect((await admin.get("/v1/keys")).body.data.some((k: any) => k.id === created.body.id)).toBe(false)
  })

  // Every CLI run starts a Node process: independent ones run together.
  it("manages people, keys and workspaces from the CLI", async () => {
    const made = await apiClient(ctl.baseUrl, adminKey).post("/v1/keys", { name: "To revoke", role: "admin" })
    const basic = await createWorkspace(ctl.env, "basic", "Upgrade me")
    const [help, usage, piped, revoke, setPlan, badPlan] = await Promise.all([
      cli(["user", "create", "--help"]),
      cli(["user", "create", "--email", "x@example.test"]),
      pipedCli(["user", "create", "--email", "piped@example.test", "--workspace", workspaceId, "--role", "member"], "my-own-password\n"),
      cli(["key", "revoke", made.body.id]),
      cli(["workspace", "set-plan", basic.workspace.id, "pro"]),
      cli(["workspace", "set-plan", basic.workspace.id, "gold"])
    ])
    expect(help.code).toBe(0)
    expect(help.output).toMatch(/ricochet user create --email EMAIL --workspace ID --role admin\|member/)
    expect(usage.code).toBe(2)
    expect(piped.code, piped.output).toBe(0)
    expect(piped.output).toMatch(/password as given/)
    expect(revoke.code, revoke.output).toBe(0)
    expect((await apiClient(ctl.baseUrl, made.body.key).get("/v1/links")).status).toBe(401)
    expect(setPlan.code, setPlan.output).toBe(0)
    expect((await apiClient(ctl.baseUrl, basic.apiKey).get("/v1/links")).status).toBe(200)
    // A plan that does not exist is a usage error (2), found before anything is asked of the database.
    expect(badPlan.code).toBe(2)

    const cookie = cookieOf(await signIn("piped@example.test", "my-own-password"))
    const [again, users, reset, keys, workspaces] = await Promise.all([
      cli(["user", "create", "--email", "piped@example.test", "--workspace", workspaceId, "--role", "member"]),
      cli(["user", "list", "--workspace", workspaceId]),
      cli(["user", "reset-password", "--email", "piped@example.test", "--json"]),
      cli(["key", "list", "--workspace", workspaceId, "--json"]),
      cli(["workspace", "list", "--json"])
    ])
    expect(again.code).toBe(1)
    expect(users.code).toBe(0)
    const lines = users.output.trim().split("\n")
    expect(lines[0]).toBe("id\temail\tworkspaceId\trole\tcreatedAt")
    expect(lines.some((l) => l.split("\t")[1] === "piped@example.test")).toBe(true)
    expect(reset.code, reset.output).toBe(0)
    const fresh = JSON.parse(reset.output.trim().split("\n").pop()!).password as string
    expect((await browser("GET", "/v1/sessions/current", { cookie })).status).toBe(401)
    expect((await signIn("piped@example.test", fresh)).status).toBe(201)
    const listed = JSON.parse(keys.output.trim().split("\n").pop()!).data
    expect(listed.find((k: any) => k.name === "First key")).toMatchObject({ prefix: adminKey.slice(0, 9), createdBy: { email: ADMIN_EMAIL } })
    expect(listed.some((k: any) => k.id === made.body.id)).toBe(false)
    expect(JSON.parse(workspaces.output.trim().split("\n").pop()!).data.find((w: any) => w.id === workspaceId)).toMatchObject({ name: "My workspace", plan: "pro" })
  }, 400_000)

  it.runIf(backend === "embedded")("refuses a data directory without a database, except to create a workspace", async () => {
    const empty = await tempDir()
    try {
      const res = await runCli(["workspace", "list"], { ...ctl.env, RICOCHET_DATA_DIR: empty, DATABASE_URL: undefined })
      expect(res.code).toBe(1)
      expect(res.output).toMatch(/No database in/)
    } finally {
      await removeDir(empty)
    }
  })
})
