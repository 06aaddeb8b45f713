import { describe, expect, it } from "vitest"
import { bearerToken, displayPrefix, generateApiKey, hashApiKey, KEY_PREFIX, looksLikeApiKey } from "../../control/auth/apiKeys.ts"
import type { LinkRow } from "../../control/links/linkRow.ts"
import { decodeCursor, encodeCursor } from "../../control/links/cursor.ts"

describe("generateApiKey", () => {
  const keys = Array.from({ length: 200 }, () => generateApiKey())

  it("has the brand prefix and 32 base62 characters", () => {
    expect(KEY_PREFIX).toBe("rico_")
    for (const key of keys) expect(key).toMatch(/^rico_[0-9A-Za-z]{32}$/)
  })

  it("never repeats", () => {
    expect(new Set(keys).size).toBe(keys.length)
  })

  it("uses the whole alphabet (not, say, hex)", () => {
    const seen = new Set(keys.join("").slice(0).replace(/rico_/g, ""))
    expect(seen.size).toBe(62)
  })

  it("is recognised as a key", () => {
    for (const key of keys) expect(looksLikeApiKey(key)).toBe(true)
  })
})

describe("hashApiKey", () => {
  it.each<readonly [string, string]>([
    // SHA-256 test vectors (FIPS 180-2)
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"]
  ])("sha256(%j)", (input, hex) => {
    expect(hashApiKey(input)).toBe(hex)
  })

  it("is 64 lower-case hex characters, stable, and differs between keys", () => {
    const a = generateApiKey()
    const b = generateApiKey()
    expect(hashApiKey(a)).toMatch(/^[0-9a-f]{64}$/)
    expect(hashApiKey(a)).toBe(hashApiKey(a))
    expect(hashApiKey(a)).not.toBe(hashApiKey(b))
    expect(hashApiKey(a)).not.toContain(a.slice(KEY_PREFIX.length))
  })
})

describe("displayPrefix", () => {
  it("shows the brand prefix and four characters", () => {
    expect(displayPrefix("rico_AbCdEfGhIjKlMnOpQrStUvWxYz012345")).toBe("rico_AbCd")
  })
})

describe("looksLikeApiKey", () => {
  it.each<readonly [string, boolean]>([
    ["rico_" + "a".repeat(32), true],
    ["rico_" + "Z9".repeat(12), true], // 24: the shortest docs/decisions.md#keys-plans-and-rate-limits allows
    ["rico_" + "a".repeat(23), false],
    ["rico_" + "a".repeat(128), true],
    ["rico_" + "a".repeat(129), false],
    ["RICO_" + "a".repeat(32), false],
    ["rico-" + "a".repeat(32), false],
    ["sk_" + "a".repeat(32), false],
    ["a".repeat(37), false],
    ["rico_" + "a".repeat(31) + "-", false],
    ["rico_" + "a".repeat(31) + "_", false],
    ["rico_" + "a".repeat(31) + "\u00e9", false],
    [" rico_" + "a".repeat(32), false],
    ["rico_" + "a".repeat(32) + "\n", false],
    ["", false]
  ])("%j → %s", (key, expected) => {
    expect(looksLikeApiKey(key)).toBe(expected)
  })
})

describe("bearerToken", () => {
  const key = "rico_" + "k".repeat(32)
  it.each<readonly [string | undefined, string | undefined]>([
    [`Bearer ${key}`, key],
    [`bearer ${key}`, key],
    [`BEARER ${key}`, key],
    [`BeArEr ${key}`, key],
    [`Bearer    ${key}`, key],
    [`Bearer\t${key}`, key],
    [`Bearer ${key}  `, key],
    ["Bearer not-a-key", "not-a-key"],
    [undefined, undefined],
    ["", undefined],
    ["Bearer", undefined],
    ["Bearer ", undefined],
    [key, undefined],
    [`Basic ${key}`, undefined],
    [`Token ${key}`, undefined],
    [`Bearer ${key} extra`, undefined],
    [`Bearer ${key} ${key}`, undefined],
    [`Bearer${key}`, undefined],
    [` Bearer ${key}`, undefined],
    [`X Bearer ${key}`, undefined]
  ])("%j → %j", (header, expected) => {
    expect(bearerToken(header)).toBe(expected)
  })
})

describe("link list cursors", () => {
  const row = (created_key: string, id: string) => ({ created_key, id }) as LinkRow

  it.each<readonly [string, string]>([
    ["2025-01-02 03:04:05.123456+00", "lnk_abcdefghijklmnopqrst"],
    ["2025-01-02 03:04:05+00", "lnk_1"],
    ["2025-06-30 23:59:59.999999+02", "lnk_2"],
    ["2025-06-30 23:59:59.5-05", "x"],
    ["2025-06-30 23:59:59.5+00", "id with spaces, commas and \"quotes\""],
    ["2024-02-29 00:00:00+05:30", "lnk_3"],
    ["0001-01-01 00:00:00.000001-09:30:15", "lnk_4"],
    ["9999-12-31 23:59:59+15:59:59", "lnk_5"]
  ])("round trip of (%j, %j)", (createdKey, id) => {
    const cursor = encodeCursor(row(createdKey, id))
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/) // opaque and URL-safe
    expect(decodeCursor(cursor)).toEqual({ createdKey, id })
  })

  it("distinct rows give distinct cursors", () => {
    expect(encodeCursor(row("2025-01-02 03:04:05+00", "lnk_1"))).not.toBe(encodeCursor(row("2025-01-02 03:04:05+00", "lnk_2")))
  })

  const b64 = (text: string) => Buffer.from(text).toString("base64url")
  it.each<readonly [string, string]>([
    ["empty", ""],
    ["not base64", "!!!***"],
    ["base64 of plain text", b64("hello world")],
    ["base64 of an object", b64(JSON.stringify({ createdKey: "2025-01-02 03:04:05+00", id: "lnk_1" }))],
    ["base64 of null", b64("null")],
    ["base64 of a string", b64("\"2025-01-02\"")],
    ["one element", b64(JSON.stringify(["2025-01-02 03:04:05+00"]))],
    ["three elements", b64(JSON.stringify(["2025-01-02 03:04:05+00", "lnk_1", "x"]))],
    ["numbers", b64(JSON.stringify([1735787045000, 1]))],
    ["id not a string", b64(JSON.stringify(["2025-01-02 03:04:05+00", 7]))],
    ["key not a date", b64(JSON.stringify(["yesterday", "lnk_1"]))],
    ["key an impossible date", b64(JSON.stringify(["2025-13-45 99:99:99+00", "lnk_1"]))],
    ["SQL in the key", b64(JSON.stringify(["'; DROP TABLE links; --", "lnk_1"]))],
    // Times PostgreSQL's timestamptz input refuses: a 500 from the listing query's cast before.
    ["an offset of 99 hours", b64(JSON.stringify(["2026-11-23 17:11:04.41714+99", "x"]))],
    ["an offset of 16 hours", b64(JSON.stringify(["2026-11-23 17:11:04+16", "lnk_1"]))],
    ["an offset of 60 minutes", b64(JSON.stringify(["2026-11-23 17:11:04+15:60", "lnk_1"]))],
    ["an offset of 60 seconds", b64(JSON.stringify(["2026-11-23 17:11:04+01:00:60", "lnk_1"]))],
    ["hour 24", b64(JSON.stringify(["2026-11-23 24:00:00+00", "lnk_1"]))],
    ["second 60", b64(JSON.stringify(["2026-11-23 23:59:60+00", "lnk_1"]))],
    ["year 0", b64(JSON.stringify(["0000-01-01 00:00:00+00", "lnk_1"]))],
    ["February 29 of a common year", b64(JSON.stringify(["2025-02-29 00:00:00+00", "lnk_1"]))],
    ["seven fractional digits", b64(JSON.stringify(["2025-01-02 03:04:05.1234567+00", "lnk_1"]))],
    ["no offset", b64(JSON.stringify(["2025-01-02 03:04:05", "lnk_1"]))],
    // Ids PostgreSQL cannot compare, or that no id is.
    ["a NUL in the id", b64(JSON.stringify(["2025-01-02 03:04:05+00", "lnk_\u0000"]))],
    ["a lone surrogate in the id", b64(JSON.stringify(["2025-01-02 03:04:05+00", "lnk_\ud800"]))],
    ["an empty id", b64(JSON.stringify(["2025-01-02 03:04:05+00", ""]))],
    ["an id of 65 characters", b64(JSON.stringify(["2025-01-02 03:04:05+00", "x".repeat(65)]))]
  ])("garbage (%s) → undefined", (_case, cursor) => {
    expect(decodeCursor(cursor)).toBeUndefined()
  })
})
