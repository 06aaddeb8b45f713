import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type Answer } from "../support/signedIn.ts"
import { type InProcessControl, startInProcessControl } from "../support/inProcessControl.ts"

/**
 * POST /v1/sessions from outside, as an attacker would try it: signing a browser in from a page
 * of another site (login CSRF), and beating the five-a-minute wrong-password limit by sending the
 * guesses all at once. Every request here comes from one address, so these tests stand on the
 * per-account limit and hold whether or not the client address reaches the handler. The API is
 * served in process (its clock moved by the test: a fresh minute window for every test).
 */
const ADMIN_EMAIL = "signin-admin@example.test"

describe.each([["postgres"], ["embedded"]] as const)("signing in over %s", (backend) => {
  let ctl: InProcessControl
  let password: string

  const signIn = async (body: string, headers: Record<string, string>): Promise<Answer> => {
    const res = await fetch(`${ctl.baseUrl}/v1/sessions`, { method: "POST", headers, body })
    const text = await res.text()
    return { status: res.status, headers: res.headers, body: text === "" ? undefined : JSON.parse(text) }
  }
  const json = (pw: string, headers: Record<string, string> = {}) =>
    signIn(JSON.stringify({ email: ADMIN_EMAIL, password: pw }), { "content-type": "application/json", ...headers })
  const form = (pw: string, headers: Record<string, string> = {}) =>
    signIn(new URLSearchParams({ email: ADMIN_EMAIL, password: pw }).toString(), { "content-type": "application/x-www-form-urlencoded", ...headers })

  beforeAll(async () => {
    ctl = await startInProcessControl(backend, { RICOCHET_ADMIN_EMAIL: ADMIN_EMAIL })
    password = ctl.first.admin.password
  }, 120_000)

  afterAll(async () => {
    await ctl?.stop()
  })

  // What one test counts must not weigh on the next.
  beforeEach(() => ctl.advance("1 minute"))

  it("refuses a sign-in from another site's page, form or JSON, with 403 and no cookie", async () => {
    const refusals = [
      await form(password, { origin: "http://evil.example" }),
      await json(password, { origin: "http://evil.example" }),
      await form(password, { origin: "null" }),
      // Another port of this host is another origin.
      await form(password, { origin: "http://127.0.0.1:1" }),
      await form(password, { "sec-fetch-site": "cross-site" }),
      await json(password, { "sec-fetch-site": "same-site" })
    ]
    for (const res of refusals) {
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: "forbidden" })
      expect(res.body.error.message).toMatch(/this site/)
      expect(res.headers.get("set-cookie")).toBeNull()
      // Counted against the address like any sign-in.
      expect(res.headers.get("ratelimit-limit")).toBe("30")
    }
    // Refused before the body is read: a body that would be a 422 is still a 403.
    expect((await signIn("{}", { "content-type": "application/json", origin: "http://evil.example" })).status).toBe(403)
  })

  it("signs in from this site's page (Origin or Sec-Fetch-Site same-origin) and from a script that sends no Origin", async () => {
    const allowed = [
      await form(password, { origin: ctl.baseUrl }),
      await json(password, { origin: ctl.baseUrl, "sec-fetch-site": "same-origin" }),
      await json(password),
      await form(password, { "sec-fetch-site": "same-origin" })
    ]
    for (const res of allowed) {
      expect(res.status).toBe(201)
      expect(res.headers.get("set-cookie")).toMatch(/^ricochet_session=[0-9A-Za-z]{43};/)
    }
  })

  it("gives a right password's count back: right ones never lock the account, wrong ones still do", async () => {
    const statuses: Array<number> = []
    for (let i = 0; i < 6; i++) statuses.push((await json(password)).status)
    for (let i = 0; i < 4; i++) statuses.push((await json(`wrong-${i}`)).status)
    statuses.push((await json(password)).status)
    // The fifth wrong one is still checked: a right password does not forgive the earlier four.
    statuses.push((await json("wrong-4")).status)
    const locked = await json(password)
    statuses.push(locked.status)
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 401, 401, 401, 401, 201, 401, 429])
    expect(locked.headers.get("retry-after")).toBe("60")
    expect(locked.headers.get("ratelimit-limit")).toBe("5")
    expect(locked.headers.get("ratelimit-remaining")).toBe("0")
    expect(locked.headers.get("set-cookie")).toBeNull()
  })

  it("checks at most five of 25 simultaneous sign-ins to one account (24 wrong, 1 right); the rest are 429", async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => json(i === 12 ? password : `guess-${i}`)))
    const count = (status: number) => answers.filter((a) => a.status === status).length
    expect(count(401) + count(201) + count(429)).toBe(25)
    // Five checks against the account at most; a right password gives its count back, so when it
    // comes early one more guess may be checked after it: still never more than five wrong ones.
    expect(count(401)).toBeLessThanOrEqual(5)
    expect(count(201)).toBeLessThanOrEqual(1)
    expect(count(401) + count(201)).toBeGreaterThanOrEqual(1)
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(refused.body.error.code).toBe("rate_limit_exceeded")
      expect(refused.headers.get("ratelimit-limit")).toBe("5")
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
    }
  })
})
