import { describe, expect, it } from "vitest"
import { lastUseRecorder } from "../../control/auth/lastUsed.ts"
import { clearedSessionCookie, secureCookies, sessionCookie } from "../../control/sessions/cookie.ts"
import { originAllowed, signInOriginAllowed } from "../../control/sessions/csrf.ts"
import { ConfigError, loadConfig } from "../../config.ts"

describe("the CSRF Origin check of cookie sessions", () => {
  const PUBLIC = "https://links.example.com"
  it.each<readonly [string, string | undefined, string | undefined, string | undefined, boolean]>([
    ["GET", undefined, "localhost:3000", undefined, true],
    ["HEAD", "https://evil.example", "localhost:3000", undefined, true],
    ["POST", "http://localhost:3000", "localhost:3000", undefined, true],
    ["DELETE", "http://LOCALHOST:3000", "localhost:3000", undefined, true],
    ["PATCH", "https://links.example.com", "10.0.0.5:3000", PUBLIC, true],
    ["POST", undefined, "localhost:3000", undefined, false],
    ["POST", "null", "localhost:3000", undefined, false],
    ["POST", "https://evil.example", "localhost:3000", undefined, false],
    ["PUT", "http://localhost:3001", "localhost:3000", undefined, false],
    ["POST", "http://links.example.com", "10.0.0.5:3000", PUBLIC, false],
    ["POST", "not a url", "localhost:3000", undefined, false],
    ["POST", "http://localhost:3000", undefined, undefined, false]
  ])("%s with Origin %s to Host %s (public origin %s): %s", (method, origin, host, publicOrigin, allowed) => {
    expect(originAllowed(method, origin, host, publicOrigin)).toBe(allowed)
  })
})

describe("the Origin check of signing in (login CSRF)", () => {
  const PUBLIC = "https://links.example.com"
  it.each<readonly [string | undefined, string | undefined, string | undefined, string | undefined, boolean]>([
    // A script or curl: no Origin, no Sec-Fetch-Site.
    [undefined, undefined, "localhost:3000", undefined, true],
    [undefined, "same-origin", "localhost:3000", undefined, true],
    [undefined, "none", "localhost:3000", undefined, true],
    [undefined, "cross-site", "localhost:3000", undefined, false],
    [undefined, "Cross-Site", "localhost:3000", undefined, false],
    [undefined, "same-site", "localhost:3000", undefined, false],
    ["http://localhost:3000", undefined, "localhost:3000", undefined, true],
    ["http://localhost:3000", "same-origin", "localhost:3000", undefined, true],
    ["https://links.example.com", "same-origin", "10.0.0.5:3000", PUBLIC, true],
    ["http://evil.example", undefined, "localhost:3000", undefined, false],
    ["http://evil.example", "same-origin", "localhost:3000", undefined, false],
    ["null", undefined, "localhost:3000", undefined, false],
    ["http://localhost:3001", undefined, "localhost:3000", undefined, false],
    ["not a url", undefined, "localhost:3000", undefined, false]
  ])("Origin %s, Sec-Fetch-Site %s, to Host %s (public origin %s): %s", (origin, fetchSite, host, publicOrigin, allowed) => {
    expect(signInOriginAllowed(origin, fetchSite, host, publicOrigin)).toBe(allowed)
  })
})

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Lax, Path=/, Secure only over https, and clears with Max-Age=0", () => {
    expect(sessionCookie("T", false)).toBe("ricochet_session=T; HttpOnly; SameSite=Lax; Path=/")
    expect(sessionCookie("T", true)).toBe("ricochet_session=T; HttpOnly; SameSite=Lax; Path=/; Secure")
    expect(clearedSessionCookie(true)).toBe("ricochet_session=; HttpOnly; SameSite=Lax; Path=/; Secure; Max-Age=0")
  })

  it.each<readonly [string | undefined, "http" | "https", boolean]>([
    [undefined, "https", true],
    [undefined, "http", false],
    ["http://localhost:3000", "https", false],
    ["https://links.example.com", "http", true]
  ])("is Secure with public origin %s and link scheme %s: %s", (publicOrigin, linkScheme, secure) => {
    expect(secureCookies({ publicOrigin, linkScheme })).toBe(secure)
  })
})

describe("last-use writes", () => {
  it("are due once a minute per credential", () => {
    const due = lastUseRecorder()
    expect([due("a", 0), due("a", 59_999), due("b", 59_999), due("a", 60_000), due("a", 60_001)]).toEqual([true, false, true, true, false])
  })
})

describe("configuration of people and sessions", () => {
  it("defaults and reads the admin email, idle hours and public origin", () => {
    expect(loadConfig({})).toMatchObject({ adminEmail: "admin@localhost", sessionIdleHours: 168, publicOrigin: undefined })
    expect(loadConfig({ RICOCHET_ADMIN_EMAIL: "Ops@Example.com", RICOCHET_SESSION_IDLE_HOURS: "2", RICOCHET_PUBLIC_ORIGIN: "https://links.example.com/app" }))
      .toMatchObject({ adminEmail: "ops@example.com", sessionIdleHours: 2, publicOrigin: "https://links.example.com" })
  })

  it.each([
    ["RICOCHET_ADMIN_EMAIL", "not an email"],
    ["RICOCHET_SESSION_IDLE_HOURS", "0"],
    ["RICOCHET_PUBLIC_ORIGIN", "ftp://example.com"]
  ])("refuses %s=%s", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
  })
})
