import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { signedInClient } from "../support/signedIn.ts"
import { type InProcessControl, startInProcessControl } from "../support/inProcessControl.ts"

/**
 * What counts in one-minute windows, on a clock the test moves (the API in process, Effect's
 * TestClock): the five-a-minute wrong-password limit of sign-ins and password changes, per
 * account and per address, and the per-workspace request allowance. Every test starts on a minute
 * boundary of its own, so nothing here waits for the wall clock or depends on where in a minute
 * it runs. Every request comes from one address.
 */
describe.each([["postgres"], ["embedded"]] as const)("minute windows over %s", (backend) => {
  let ctl: InProcessControl
  let web: ReturnType<typeof signedInClient>
  let workspaceId: string
  let adminEmail: string
  let adminPassword: string

  beforeAll(async () => {
    ctl = await startInProcessControl(backend, { RICOCHET_SHORT_DOMAIN: "windows.test" })
    web = signedInClient(ctl.baseUrl)
    workspaceId = ctl.first.workspace.id
    adminEmail = ctl.first.admin.email
    adminPassword = ctl.first.admin.password
  }, 120_000)

  afterAll(async () => {
    await ctl?.stop()
  })

  // A fresh window for every test, whatever the one before counted.
  beforeEach(() => ctl.advance("1 minute"))

  const password = (pw: string, email = adminEmail) => web.signIn(email, pw)

  it("limits wrong passwords to five a minute per account, then 429 with Retry-After even for the right one, until the window ends", async () => {
    const victim = await ctl.createUser({ email: "victim@example.test", workspaceId, role: "member" })
    for (let i = 0; i < 5; i++) {
      const res = await password(`wrong-${i}`, victim.user.email)
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 401, code: "unauthorized" })
    }
    await ctl.advance("10 seconds")
    const limited = await password(victim.password!, victim.user.email)
    expect({ status: limited.status, code: limited.body.error.code }).toEqual({ status: 429, code: "rate_limit_exceeded" })
    expect(limited.headers.get("retry-after")).toBe("50")
    expect(limited.headers.get("set-cookie")).toBeNull()
    // Per address too: from here, another account is refused as well until the window ends.
    const sameAddress = await password(adminPassword)
    expect(sameAddress.status).toBe(429)
    await ctl.advance("49 seconds")
    expect((await password(victim.password!, victim.user.email)).status).toBe(429)
    await ctl.advance("1 second")
    expect((await password(victim.password!, victim.user.email)).status).toBe(201)
  })

  // A right password's count given back, and 25 guesses at once: signIn.test.ts.

  it("counts wrong current passwords as wrong sign-in passwords: five a minute, then 429 for the change and the sign-in", async () => {
    const person = await ctl.createUser({ email: "one-time@example.test", workspaceId, role: "member" })
    const signedIn = await password(person.password!, person.user.email)
    expect(signedIn.body.mustChangePassword).toBe(true)
    const cookie = web.cookieOf(signedIn)
    const change = (currentPassword: string) =>
      web.request("POST", "/v1/me/password", { cookie, body: { currentPassword, newPassword: "a password of my own" } })
    for (let i = 0; i < 5; i++) {
      const res = await change(`guess-${i}`)
      expect({ status: res.status, issue: res.body.error.issues?.[0]?.code }).toEqual({ status: 422, issue: "wrong_password" })
    }
    const limited = await change(person.password!)
    expect({ status: limited.status, code: limited.body.error.code }).toEqual({ status: 429, code: "rate_limit_exceeded" })
    expect(limited.headers.get("ratelimit-limit")).toBe("5")
    expect(limited.headers.get("retry-after")).toBe("60")
    expect((await password(person.password!, person.user.email)).status).toBe(429)
    await ctl.advance("1 minute")
    expect((await change(person.password!)).status).toBe(200)
  })

  it("allows a workspace 300 requests a minute, counting down to 0, then 429 until the next window", async () => {
    const { apiKey } = await ctl.createWorkspace("pro", "Busy")
    const get = () => web.request("GET", "/v1/tags", { headers: { authorization: `Bearer ${apiKey}` } })
    const remaining: Array<number> = []
    for (let batch = 0; batch < 15; batch++) {
      for (const res of await Promise.all(Array.from({ length: 20 }, get))) {
        expect(res.status).toBe(200)
        expect(res.headers.get("ratelimit-limit")).toBe("300")
        expect(res.headers.get("ratelimit-reset")).toBe("60")
        remaining.push(Number(res.headers.get("ratelimit-remaining")))
      }
    }
    expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 300 }, (_, i) => i))
    await ctl.advance("45 seconds")
    const over = await get()
    expect({ status: over.status, code: over.body.error.code }).toEqual({ status: 429, code: "rate_limit_exceeded" })
    expect(over.headers.get("retry-after")).toBe("15")
    expect(over.headers.get("ratelimit-reset")).toBe("15")
    expect(over.headers.get("ratelimit-remaining")).toBe("0")
    await ctl.advance("15 seconds")
    const fresh = await get()
    expect(fresh.status).toBe(200)
    expect(fresh.headers.get("ratelimit-remaining")).toBe("299")
  })
})

