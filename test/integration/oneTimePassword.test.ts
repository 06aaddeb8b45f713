import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  removeDir,
  runCli,
  runCliPiped,
  startControl,
  tempDir
} from "../support/processes.ts"
import { type Answer, type BrowserRequest, signedInClient } from "../support/signedIn.ts"

/**
 * The one-time passwords the server prints (first start, the CLI without a piped password): the
 * session they open may only choose a new password (POST /v1/me/password), after which the
 * printed one no longer signs in, the person's other sessions have ended, and all of it holds
 * across a restart.
 */
const ADMIN_EMAIL = "first@example.test"
const NEW_PASSWORD = "a password of my own"

describe.each([["postgres"], ["embedded"]] as const)("one-time passwords over %s", (backend) => {
  let ctl: ControlHandle
  let env: Record<string, string | undefined>
  let dir: string
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined
  let workspaceId: string
  let oneTime: string
  let firstKey: string
  let generatedEmail: string
  let generated: string

  const web = () => signedInClient(ctl.baseUrl)
  const browser = (method: string, path: string, options?: BrowserRequest) => web().request(method, path, options)
  const signIn = (email: string, password: string) => web().signIn(email, password)
  const cookieOf = (res: Answer) => web().cookieOf(res)
  const changePassword = (cookie: string, body: unknown, origin?: string | null) => browser("POST", "/v1/me/password", { cookie, body, origin })
  const lastJson = (output: string) => JSON.parse(output.trim().split("\n").pop()!)

  beforeAll(async () => {
    dir = await tempDir()
    db = backend === "postgres" ? await createTestDatabase() : undefined
    env = { DATABASE_URL: db?.url, NATS_URL: undefined, RICOCHET_DATA_DIR: dir, RICOCHET_ADMIN_EMAIL: ADMIN_EMAIL, RICOCHET_SHORT_DOMAIN: "once.test" }
    ctl = await startControl(env, true)
    const out = ctl.output()
    workspaceId = /Created workspace "[^"]*" \((ws_\w+), plan pro\)/.exec(out)![1]!
    oneTime = /one-time password \(shown once\): (\S+)/.exec(out)![1]!
    firstKey = ctl.firstKey!
  }, 180_000)

  afterAll(async () => {
    await ctl?.stop()
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  it("signs in with the first start's password to a session that may only read itself, sign out and choose a new password", async () => {
    const signedIn = await signIn(ADMIN_EMAIL, oneTime)
    expect(signedIn.status).toBe(201)
    expect(signedIn.body).toMatchObject({ user: { email: ADMIN_EMAIL }, workspace: { id: workspaceId }, mustChangePassword: true })
    const cookie = cookieOf(signedIn)

    const refused = [
      await browser("GET", "/v1/links", { cookie }),
      await browser("POST", "/v1/tags", { cookie, body: { name: "too-soon" } }),
      await browser("GET", "/v1/keys", { cookie }),
      await browser("PATCH", "/v1/sessions/current", { cookie, body: { workspaceId } }),
      await browser("GET", "/v1/no-such-endpoint", { cookie })
    ]
    for (const res of refused) {
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: "forbidden" })
      expect(res.body.error.message).toMatch(/choose a new password/)
    }
    const current = await browser("GET", "/v1/sessions/current", { cookie })
    expect({ status: current.status, mustChangePassword: current.body.mustChangePassword }).toEqual({ status: 200, mustChangePassword: true })

    // The admin's key is not the password: it works, and is no session to change a password with.
    const key = apiClient(ctl.baseUrl, firstKey)
    expect((await key.get("/v1/links")).status).toBe(200)
    const keyed = await key.post("/v1/me/password", { currentPassword: oneTime, newPassword: NEW_PASSWORD })
    expect({ status: keyed.status, code: keyed.body.error.code }).toEqual({ status: 401, code: "unauthorized" })

    const out = await browser("DELETE", "/v1/sessions/current", { cookie })
    expect(out.status).toBe(200)
  })

  it("changes it: wrong, short and unchanged passwords refused; then the old one is gone and the other sessions with it", async () => {
    const cookie = cookieOf(await signIn(ADMIN_EMAIL, oneTime))
    const other = cookieOf(await signIn(ADMIN_EMAIL, oneTime))

    const wrong = await changePassword(cookie, { currentPassword: "not-the-password", newPassword: NEW_PASSWORD })
    expect(wrong.status).toBe(422)
    expect(wrong.body.error).toMatchObject({ code: "unprocessable_entity", issues: [{ path: ["currentPassword"], code: "wrong_password" }] })
    const short = await changePassword(cookie, { currentPassword: oneTime, newPassword: "short" })
    expect(short.status).toBe(422)
    expect(short.body.error.issues).toEqual([expect.objectContaining({ path: ["newPassword"] })])
    const same = await changePassword(cookie, { currentPassword: oneTime, newPassword: oneTime })
    expect(same.status).toBe(422)
    expect(same.body.error.issues).toEqual([expect.objectContaining({ path: ["newPassword"], code: "same_as_current" })])
    const missing = await changePassword(cookie, { newPassword: NEW_PASSWORD })
    expect(missing.status).toBe(422)
    // A cookie request that changes something, from another site: the CSRF rule of every session request.
    expect((await changePassword(cookie, { currentPassword: oneTime, newPassword: NEW_PASSWORD }, "http://evil.example")).status).toBe(403)
    expect((await browser("GET", "/v1/links", { cookie })).status).toBe(403)

    const changed = await changePassword(cookie, { currentPassword: oneTime, newPassword: NEW_PASSWORD })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ user: { email: ADMIN_EMAIL }, workspace: { id: workspaceId }, role: "admin", mustChangePassword: false })
    expect(changed.headers.get("set-cookie")).toBeNull()

    // This session goes on, now unrestricted; the other one has ended.
    expect((await browser("GET", "/v1/links", { cookie })).status).toBe(200)
    expect((await browser("POST", "/v1/tags", { cookie, body: { name: "after-change" } })).status).toBe(201)
    expect((await browser("GET", "/v1/sessions/current", { cookie: other })).status).toBe(401)

    const old = await signIn(ADMIN_EMAIL, oneTime)
    expect({ status: old.status, code: old.body.error.code }).toEqual({ status: 401, code: "unauthorized" })
    const again = await signIn(ADMIN_EMAIL, NEW_PASSWORD)
    expect(again.status).toBe(201)
    expect(again.body.mustChangePassword).toBe(false)
    expect((await browser("GET", "/v1/links", { cookie: cookieOf(again) })).status).toBe(200)
  })

  it("makes the CLI's generated passwords one-time, not the ones piped in; a generated reset is one-time again", async () => {
    generatedEmail = "generated@example.test"
    const [made, piped] = await Promise.all([
      runCli(["user", "create", "--email", generatedEmail, "--workspace", workspaceId, "--role", "member", "--json"], ctl.env),
      runCliPiped(["user", "create", "--email", "chosen@example.test", "--workspace", workspaceId, "--role", "member"], ctl.env, "chosen by the operator\n")
    ])
    expect(made.code, made.output).toBe(0)
    expect(piped.code, piped.output).toBe(0)
    generated = lastJson(made.output).password
    expect((await signIn(generatedEmail, generated)).body.mustChangePassword).toBe(true)
    expect((await signIn("chosen@example.test", "chosen by the operator")).body.mustChangePassword).toBe(false)

    const reset = await runCli(["user", "reset-password", "--email", "chosen@example.test", "--json"], ctl.env)
    expect(reset.code, reset.output).toBe(0)
    expect((await signIn("chosen@example.test", lastJson(reset.output).password)).body.mustChangePassword).toBe(true)
  })

  it("holds across a restart: it is in the database", { timeout: 240_000 }, async () => {
    await ctl.stop()
    ctl = await startControl(env, true)
    expect(ctl.firstKey).toBeUndefined()
    expect((await signIn(ADMIN_EMAIL, oneTime)).status).toBe(401)
    expect((await signIn(ADMIN_EMAIL, NEW_PASSWORD)).body.mustChangePassword).toBe(false)
    const stillOneTime = await signIn(generatedEmail, generated)
    expect(stillOneTime.body.mustChangePassword).toBe(true)
    expect((await browser("GET", "/v1/links", { cookie: cookieOf(stillOneTime) })).status).toBe(403)
  })
  // The wrong-password limit of password changes: minuteWindows.test.ts, on a clock it moves.
})
