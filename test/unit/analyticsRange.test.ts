import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { requestedWindow } from "../../control/analytics/resolve.ts"
import { AnalyticsQuery } from "../../control/analytics/schema.ts"
import { QUERY_OPTIONS } from "../../control/kernel/RequestChecks.ts"
import { toFieldIssues } from "../../control/kernel/issues.ts"

const HOUR = 3_600_000
const DAY = 24 * HOUR
const NOW = Date.parse("2030-06-15T12:34:56.789Z")
const at = (iso: string) => Date.parse(iso)

describe("requestedWindow: a custom window cut to the plan's history and to now", () => {
  it.each([
    { name: "no start: the interval, hourly for 24h", q: {}, plan: "pro", window: { fromMs: NOW - DAY, toMs: NOW, bucket: "hour" } },
    { name: "no start: 7d is daily", q: { interval: "7d" }, plan: "pro", window: { fromMs: NOW - 7 * DAY, toMs: NOW, bucket: "day" } },
    {
      name: "48 hours exactly is hourly",
      q: { start: "2030-06-10T00:00:00Z", end: "2030-06-12T00:00:00Z" },
      plan: "pro",
      window: { fromMs: at("2030-06-10T00:00:00Z"), toMs: at("2030-06-12T00:00:00Z"), bucket: "hour" }
    },
    {
      name: "past 48 hours is daily",
      q: { start: "2030-06-10T00:00:00Z", end: "2030-06-12T00:00:01Z" },
      plan: "pro",
      window: { fromMs: at("2030-06-10T00:00:00Z"), toMs: at("2030-06-12T00:00:01Z"), bucket: "day" }
    },
    { name: "end defaults to now", q: { start: "2030-06-15T00:00:00Z" }, plan: "pro", window: { fromMs: at("2030-06-15T00:00:00Z"), toMs: NOW, bucket: "hour" } },
    { name: "an end in the future is cut to now", q: { start: "2030-06-01T00:00:00Z", end: "2099-01-01T00:00:00Z" }, plan: "pro", window: { fromMs: at("2030-06-01T00:00:00Z"), toMs: NOW, bucket: "day" } },
    { name: "a start before the plan's history is cut to it", q: { start: "2020-01-01T00:00:00Z", end: "2030-06-15T00:00:00Z" }, plan: "free", window: { fromMs: NOW - 30 * DAY, toMs: at("2030-06-15T00:00:00Z"), bucket: "day" } },
    { name: "a window wholly before the history is empty", q: { start: "2020-01-01T00:00:00Z", end: "2020-02-01T00:00:00Z" }, plan: "free", window: { fromMs: NOW - 30 * DAY, toMs: NOW - 30 * DAY, bucket: "hour" } },
    { name: "a window wholly in the future is empty", q: { start: "2031-01-01T00:00:00Z", end: "2031-02-01T00:00:00Z" }, plan: "pro", window: { fromMs: at("2031-01-01T00:00:00Z"), toMs: at("2031-01-01T00:00:00Z"), bucket: "hour" } }
  ] as const)("$name", ({ q, plan, window }) => {
    expect(requestedWindow(q, plan, NOW)).toEqual(window)
  })
})

describe("AnalyticsQuery: start and end", () => {
  const issues = (query: Record<string, string>) => {
    try {
      Schema.decodeUnknownSync(AnalyticsQuery, QUERY_OPTIONS)(query)
      return []
    } catch (error) {
      return toFieldIssues((error as Schema.SchemaError).issue).map((issue) => issue.path.join("."))
    }
  }

  it.each([
    [{ start: "2030-01-01T00:00:00Z", end: "2030-01-02T00:00:00Z" }, []],
    [{ start: "2030-01-01T00:00:00.5Z" }, []],
    [{ start: "2030-01-02T00:00:00Z", end: "2030-01-01T00:00:00Z" }, ["end"]],
    [{ start: "2030-01-01T00:00:00Z", end: "2030-01-01T00:00:00Z" }, ["end"]],
    [{ end: "2030-01-01T00:00:00Z" }, ["start"]],
    [{ start: "2030-01-01T00:00:00Z", interval: "7d" }, ["interval"]],
    [{ start: "2030-01-01" }, ["start"]],
    [{ start: "2030-02-30T00:00:00Z" }, ["start"]],
    [{ start: "2030-01-01T00:00:00+02:00" }, ["start"]],
    [{ end: "yesterday", start: "2030-01-01T00:00:00Z" }, ["end"]]
  ] as const)("%j: issues at %j", (query, paths) => {
    expect(issues(query)).toEqual(paths)
  })
})
