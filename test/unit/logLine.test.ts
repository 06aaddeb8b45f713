import { Effect, Logger } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { effectLogger } from "../../shared/logging/installLogging.ts"
import { chooseLogFormat, formatLogLine, REDACTED, redact, scrub } from "../../shared/logging/logLine.ts"

const KEY = "rico_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
const TIME = new Date("2026-11-24T01:02:03.004Z")

describe("chooseLogFormat", () => {
  it.each([
    [undefined, true, "pretty"],
    [undefined, false, "json"],
    ["json", true, "json"],
    ["pretty", false, "pretty"],
    [" JSON ", true, "json"],
    ["", false, "json"],
    ["xml", true, "pretty"]
  ] as const)("RICOCHET_LOG_FORMAT=%j on a terminal %s: %s", (configured, tty, expected) => {
    expect(chooseLogFormat(configured, tty)).toBe(expected)
  })
})

describe("scrub: secrets inside text", () => {
  it.each([
    ["an API key", `key ${KEY} refused`, `key rico_${REDACTED} refused`],
    ["a bearer header", "Authorization: Bearer abc.def-ghi", `Authorization: Bearer ${REDACTED}`],
    ["a basic header", "authorization: basic dXNlcjpwYXNz", `authorization: basic ${REDACTED}`],
    ["the session cookie", "cookie: ricochet_session=tok123; other=1", `cookie: ricochet_session=${REDACTED}; other=1`],
    ["a link's unlock cookie", "ricochet_unlock_lnk_1=sig.value", `ricochet_unlock_lnk_1=${REDACTED}`],
    ["a password parameter", "POST /unlock body password=hunter2&x=1", `POST /unlock body password=${REDACTED}&x=1`],
    ["a password in JSON", `{"email":"a@b.c","password":"hunter2"}`, `{"email":"a@b.c","password":"${REDACTED}"}`],
    ["nothing secret", "GET /v1/links/lnk_1 failed", "GET /v1/links/lnk_1 failed"]
  ])("%s", (_what, text, expected) => {
    expect(scrub(text)).toBe(expected)
  })
})

describe("redact: secret fields and nested values", () => {
  it("replaces fields named like a secret, at any depth, and scrubs strings and errors", () => {
    const error = new Error(`bad key ${KEY}`)
    const out = redact({
      headers: { authorization: "Bearer x", Cookie: "a=b", "x-request-id": "r1" },
      user: { email: "a@b.c", password: "hunter2", apiKey: KEY },
      note: `used ${KEY}`,
      error
    }) as any
    expect(out.headers).toEqual({ authorization: REDACTED, Cookie: REDACTED, "x-request-id": "r1" })
    expect(out.user).toEqual({ email: "a@b.c", password: REDACTED, apiKey: REDACTED })
    expect(out.note).toBe(`used rico_${REDACTED}`)
    expect(out.error.message).toBe(`bad key rico_${REDACTED}`)
    expect(out.error.stack).not.toContain(KEY)
  })
})

describe("formatLogLine", () => {
  it("writes one JSON object a line with time, level, message and the fields, redacted", () => {
    const line = formatLogLine("json", { time: TIME, level: "warn", message: `refused ${KEY}`, fields: { requestId: "r-1", password: "pw" } })
    expect(line).not.toContain("\n")
    expect(JSON.parse(line)).toEqual({ time: "2026-11-24T01:02:03.004Z", level: "warn", message: `refused rico_${REDACTED}`, requestId: "r-1", password: REDACTED })
  })

  it("writes a readable line on a terminal", () => {
    expect(formatLogLine("pretty", { time: TIME, level: "info", message: "Migrating…", fields: { requestId: "r-1" } }))
      .toBe("2026-11-24T01:02:03.004Z INFO  Migrating… requestId=r-1")
  })
})

describe("effectLogger", () => {
  afterEach(() => vi.restoreAllMocks())

  it("puts the request's annotations and the cause on the line, secrets redacted", async () => {
    const written: Array<string> = []
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (written.push(String(chunk)), true))
    await Effect.runPromise(
      Effect.logError(`GET /v1/links failed with ${KEY}`).pipe(
        Effect.annotateLogs({ requestId: "req-42" }),
        Effect.provide(Logger.layer([effectLogger("json")]))
      )
    )
    expect(written).toHaveLength(1)
    const entry = JSON.parse(written[0]!)
    expect(entry).toMatchObject({ level: "error", message: `GET /v1/links failed with rico_${REDACTED}`, requestId: "req-42" })
    expect(written[0]).not.toContain(KEY)
  })
})
