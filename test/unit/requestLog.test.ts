import { describe, expect, it } from "vitest"
import { type AnsweredRequest, requestLogLines } from "../../control/http/requestLog.ts"
import { formatLogLine } from "../../shared/logging/logLine.ts"

const answered = (over: Partial<AnsweredRequest> = {}): AnsweredRequest => ({
  requestId: "req-1",
  method: "GET",
  path: "/v1/links/lnk_1?x=1",
  route: "/v1/links/:id",
  status: 200,
  durationMs: 12.345,
  client: "203.0.113.7",
  bytes: 512,
  ...over
})

const off = { accessLog: false, slowRequestMs: 1000 }
const on = { accessLog: true, slowRequestMs: 1000 }

describe("requestLogLines", () => {
  it.each<readonly [string, Partial<AnsweredRequest>, typeof off, ReadonlyArray<readonly [string, string]>]>([
    ["a quick 200, no access log: nothing", {}, off, []],
    ["a 4xx is the client's: nothing", { status: 404 }, off, []],
    ["a 500: an error line", { status: 500 }, off, [["error", "request answered 500"]]],
    ["a 503 (an outage answers every request so, and says so once): nothing", { status: 503 }, off, []],
    ["a slow 503: the slow-request warning", { status: 503, durationMs: 1500 }, off, [["warn", "slow request: answered after 1500 ms"]]],
    ["a 503 in the access log", { status: 503 }, on, [["info", "request"]]],
    ["a 502: an error line", { status: 502 }, off, [["error", "request answered 502"]]],
    ["later than the threshold: a slow-request warning", { durationMs: 1500 }, off, [["warn", "slow request: answered after 1500 ms"]]],
    ["exactly at the threshold: not slow", { durationMs: 1000 }, off, []],
    ["slow and failed: one line, the failure's", { status: 500, durationMs: 5000 }, off, [["error", "request answered 500"]]],
    ["threshold 0: never slow", { durationMs: 60_000 }, { accessLog: false, slowRequestMs: 0 }, []],
    ["access log: one info line", {}, on, [["info", "request"]]],
    ["access log and a failure: both", { status: 500 }, on, [["error", "request answered 500"], ["info", "request"]]]
  ])("%s", (_case, over, settings, expected) => {
    expect(requestLogLines(answered(over), settings).map((line) => [line.level, line.message])).toEqual(expected)
  })

  it("names the request, its route and path, status and duration; the access line adds client and bytes", () => {
    const [failure] = requestLogLines(answered({ status: 500 }), off)
    expect(failure!.fields).toEqual({ requestId: "req-1", method: "GET", route: "/v1/links/:id", path: "/v1/links/lnk_1?x=1", status: 500, durationMs: 12.3 })
    const [access] = requestLogLines(answered(), on)
    expect(access!.fields).toEqual({ requestId: "req-1", method: "GET", route: "/v1/links/:id", path: "/v1/links/lnk_1?x=1", status: 200, durationMs: 12.3, client: "203.0.113.7", bytes: 512 })
    const [streamed] = requestLogLines(answered({ bytes: undefined }), on)
    expect(streamed!.fields).not.toHaveProperty("bytes")
  })

  it("writes no secret a path carries: the log line scrubs it", () => {
    const [access] = requestLogLines(answered({ path: "/v1/links?password=hunter2&token=t0k&key=rico_abcdef123" }), on)
    const line = formatLogLine("json", { time: new Date(0), level: access!.level, message: access!.message, fields: access!.fields })
    expect(line).not.toContain("hunter2")
    expect(line).not.toContain("t0k")
    expect(line).not.toContain("rico_abcdef123")
    expect(JSON.parse(line)).toMatchObject({ message: "request", requestId: "req-1", path: "/v1/links?password=[redacted]&token=[redacted]&key=rico_[redacted]" })
  })
})
