import { describe, expect, it } from "vitest"
import { AttemptLimiter, cookieName, readCookie, signUnlock, UNLOCK_TTL_SECONDS, verifyUnlock } from "../../engine/password/unlock.ts"

/** Unlock cookies of password-protected links (docs/architecture.md#the-evaluation-order, step 4), with the clock injected. */

const SECRET = "engine-secret-0123456789abcdef"
const LINK = "lnk_abc123"
const HASH = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"
const NOW = Date.parse("2030-06-15T12:00:00.000Z")
const TTL_MS = UNLOCK_TTL_SECONDS * 1000

const flip = (c: string) => (c === "A" ? "B" : "A")

describe("signUnlock / verifyUnlock", () => {
  const cookie = signUnlock(SECRET, LINK, HASH, NOW)

  it("has the form {expiry}.{mac} with the expiry a day ahead, in seconds", () => {
    expect(cookie).toMatch(/^\d+\.[A-Za-z0-9_-]+$/)
    expect(Number(cookie.split(".")[0])).toBe(Math.floor(NOW / 1000) + UNLOCK_TTL_SECONDS)
    expect(UNLOCK_TTL_SECONDS).toBe(24 * 3600)
  })

  it("never carries the password hash or the secret", () => {
    expect(cookie).not.toContain(HASH)
    expect(cookie).not.toContain("argon2")
    expect(cookie).not.toContain(SECRET)
  })

  it.each([
    ["right away", NOW],
    ["an hour later", NOW + 3_600_000],
    ["just before the expiry", NOW + TTL_MS - 1],
    ["at the expiry second", Math.floor(NOW / 1000) * 1000 + TTL_MS]
  ])("round trip: valid %s", (_name, at) => {
    expect(verifyUnlock(SECRET, LINK, HASH, cookie, at)).toBe(true)
  })

  const [expiry, mac] = cookie.split(".")
  const rows: ReadonlyArray<readonly [name: string, secret: string, link: string, hash: string, value: string | undefined, at: number]> = [
    ["another link's id", SECRET, "lnk_abc124", HASH, cookie, NOW],
    ["a link id that only prefixes this one", SECRET, "lnk_abc12", HASH, cookie, NOW],
    ["the password changed (new hash)", SECRET, LINK, HASH.replace("aGFzaA", "bmV3aA"), cookie, NOW],
    ["the password removed and set again to the same text (new salt, new hash)", SECRET, LINK, "$argon2id$v=19$m=65536,t=3,p=4$bmV3c2FsdA$aGFzaGhhc2hoYXNoaGFzaA", cookie, NOW],
    ["another engine secret", "other-secret", LINK, HASH, cookie, NOW],
    ["expired: one ms after the expiry", SECRET, LINK, HASH, cookie, (Number(expiry) * 1000) + 1],
    ["expired: two days later", SECRET, LINK, HASH, cookie, NOW + 2 * TTL_MS],
    ["tampered MAC: first character", SECRET, LINK, HASH, `${expiry}.${flip(mac[0])}${mac.slice(1)}`, NOW],
    ["tampered MAC: last character", SECRET, LINK, HASH, `${expiry}.${mac.slice(0, -1)}${flip(mac.at(-1)!)}`, NOW],
    ["tampered MAC: truncated", SECRET, LINK, HASH, `${expiry}.${mac.slice(0, -1)}`, NOW],
    ["tampered MAC: extended", SECRET, LINK, HASH, `${cookie}A`, NOW],
    ["tampered expiry (extended by a year, same MAC)", SECRET, LINK, HASH, `${Number(expiry) + 365 * 86400}.${mac}`, NOW + 2 * TTL_MS],
    ["tampered expiry (one second more, same MAC)", SECRET, LINK, HASH, `${Number(expiry) + 1}.${mac}`, NOW],
    ["no cookie", SECRET, LINK, HASH, undefined, NOW],
    ["empty", SECRET, LINK, HASH, "", NOW],
    ["just a dot", SECRET, LINK, HASH, ".", NOW],
    ["no dot", SECRET, LINK, HASH, expiry + mac, NOW],
    ["MAC only", SECRET, LINK, HASH, `.${mac}`, NOW],
    ["expiry only", SECRET, LINK, HASH, `${expiry}.`, NOW],
    ["letters", SECRET, LINK, HASH, "abc.def", NOW],
    ["NaN expiry", SECRET, LINK, HASH, `NaN.${mac}`, NOW],
    ["Infinity expiry", SECRET, LINK, HASH, `Infinity.${mac}`, NOW],
    ["fractional expiry", SECRET, LINK, HASH, `${expiry}.5.${mac}`, NOW],
    ["negative expiry", SECRET, LINK, HASH, `-${expiry}.${mac}`, NOW],
    ["non-ASCII MAC of the same length", SECRET, LINK, HASH, `${expiry}.${"é".repeat(mac.length / 2)}`, NOW],
    ["a very long value", SECRET, LINK, HASH, `${expiry}.${"A".repeat(100_000)}`, NOW],
    ["the cookie of another link", SECRET, LINK, HASH, signUnlock(SECRET, "lnk_other", HASH, NOW), NOW],
    ["a cookie signed under another secret", SECRET, LINK, HASH, signUnlock("other-secret", LINK, HASH, NOW), NOW]
  ]
  it.each(rows)("rejected: %s", (_name, secret, link, hash, value, at) => {
    expect(verifyUnlock(secret, link, hash, value, at)).toBe(false)
  })

  it("is deterministic for the same inputs and differs per link", () => {
    expect(signUnlock(SECRET, LINK, HASH, NOW)).toBe(cookie)
    expect(signUnlock(SECRET, "lnk_other", HASH, NOW)).not.toBe(cookie)
  })
})

describe("readCookie", () => {
  const name = cookieName("L1")
  const rows: ReadonlyArray<readonly [name: string, header: string, cookie: string, expected: string | undefined]> = [
    ["only cookie", `${name}=v1`, name, "v1"],
    ["among several", `theme=dark; ${name}=v1; ${cookieName("L10")}=v10; session=abc`, name, "v1"],
    ["the longer name is not the shorter one", `${cookieName("L10")}=v10; ${name}=v1`, cookieName("L10"), "v10"],
    ["a name that only ends like ours", `x${name}=bad; ${name}=good`, name, "good"],
    ["a name that only starts like ours", `${name}0=bad; ${name}=good`, name, "good"],
    ["the same text in a value", `other=${name}=bad; ${name}=good`, name, "good"],
    ["spaces and no space after ;", `a=1;${name}=v1 ;b=2`, name, "v1"],
    ["value containing =", `${name}=a=b`, name, "a=b"],
    ["not present", "a=1; b=2", name, undefined],
    ["empty header", "", name, undefined],
    ["empty value", `${name}=`, name, ""],
    ["a part without =", `junk; ${name}=v1`, name, "v1"],
    ["first of duplicates", `${name}=first; ${name}=second`, name, "first"]
  ]
  it.each(rows)("%s", (_n, header, cookie, expected) => {
    expect(readCookie(header, cookie)).toBe(expected)
  })

  it("cookie names are per link", () => {
    expect(cookieName("a")).not.toBe(cookieName("b"))
    expect(cookieName("lnk_1")).toBe("ricochet_unlock_lnk_1")
  })

  it("reads back a signed cookie that verifies", () => {
    const value = signUnlock(SECRET, LINK, HASH, NOW)
    const header = `a=1; ${cookieName("other")}=${signUnlock(SECRET, "other", HASH, NOW)}; ${cookieName(LINK)}=${value}`
    expect(verifyUnlock(SECRET, LINK, HASH, readCookie(header, cookieName(LINK)), NOW)).toBe(true)
  })
})

describe("AttemptLimiter", () => {
  const WINDOW = 60_000
  const T0 = Math.floor(NOW / WINDOW) * WINDOW // the start of a window

  it.each([
    [0, false],
    [1, false],
    [4, false],
    [5, true],
    [6, true],
    [20, true]
  ])("%i failures in one window: blocked %s", (failures, blocked) => {
    const limiter = new AttemptLimiter()
    for (let i = 0; i < failures; i++) limiter.fail("link\nip", T0 + i * 100)
    expect(limiter.blocked("link\nip", T0 + 59_999)).toBe(blocked)
  })

  it("counts per link and client", () => {
    const limiter = new AttemptLimiter()
    for (let i = 0; i < 5; i++) limiter.fail("L1\n1.1.1.1", T0)
    expect(limiter.blocked("L1\n1.1.1.1", T0)).toBe(true)
    expect(limiter.blocked("L1\n2.2.2.2", T0)).toBe(false)
    expect(limiter.blocked("L2\n1.1.1.1", T0)).toBe(false)
  })

  it("resets in the next window", () => {
    const limiter = new AttemptLimiter()
    for (let i = 0; i < 5; i++) limiter.fail("k", T0 + 1000)
    expect(limiter.blocked("k", T0 + WINDOW - 1)).toBe(true)
    expect(limiter.blocked("k", T0 + WINDOW)).toBe(false)
    // The new window counts from zero again.
    for (let i = 0; i < 4; i++) limiter.fail("k", T0 + WINDOW + 10)
    expect(limiter.blocked("k", T0 + WINDOW + 20)).toBe(false)
    limiter.fail("k", T0 + WINDOW + 30)
    expect(limiter.blocked("k", T0 + 2 * WINDOW - 1)).toBe(true)
    expect(limiter.blocked("k", T0 + 5 * WINDOW)).toBe(false)
  })

  it("failures in different windows do not add up", () => {
    const limiter = new AttemptLimiter()
    for (let i = 0; i < 4; i++) limiter.fail("k", T0 + WINDOW - 10)
    for (let i = 0; i < 4; i++) limiter.fail("k", T0 + WINDOW + 10)
    expect(limiter.blocked("k", T0 + WINDOW + 20)).toBe(false)
  })

  it("honours a custom limit and window", () => {
    const limiter = new AttemptLimiter(2, 1000)
    limiter.fail("k", 5000)
    expect(limiter.blocked("k", 5001)).toBe(false)
    limiter.fail("k", 5002)
    expect(limiter.blocked("k", 5999)).toBe(true)
    expect(limiter.blocked("k", 6000)).toBe(false)
  })
})
