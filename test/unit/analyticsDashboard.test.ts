import { describe, expect, it } from "vitest"
import { previousWindow } from "../../control/analytics/dashboard.ts"

const DAY = 86_400_000
const NOW = Date.parse("2026-06-15T12:00:00Z")

describe("previousWindow: the period a view is compared with", () => {
  it.each([
    ["24h on a plan with 30 days", { interval: "24h" }, { fromMs: NOW - DAY, toMs: NOW, bucket: "hour" }, 30, { fromMs: NOW - 2 * DAY, toMs: NOW - DAY, bucket: "hour" }],
    ["7d, days", { interval: "7d" }, { fromMs: NOW - 7 * DAY, toMs: NOW, bucket: "day" }, 30, { fromMs: NOW - 14 * DAY, toMs: NOW - 7 * DAY, bucket: "day" }],
    ["30d on a plan with 30 days: would reach past the history", { interval: "30d" }, { fromMs: NOW - 30 * DAY, toMs: NOW, bucket: "day" }, 30, undefined],
    ["all time has nothing before it", { interval: "all" }, { fromMs: NOW - 30 * DAY, toMs: NOW, bucket: "day" }, 365, undefined],
    ["a custom range, as long, just before", { start: "2026-06-10T00:00:00Z" }, { fromMs: Date.parse("2026-06-10T00:00:00Z"), toMs: Date.parse("2026-06-11T00:00:00Z"), bucket: "hour" }, 30,
      { fromMs: Date.parse("2026-06-09T00:00:00Z"), toMs: Date.parse("2026-06-10T00:00:00Z"), bucket: "hour" }],
    ["an empty window (wholly outside the history)", { start: "2020-01-01T00:00:00Z" }, { fromMs: NOW - DAY, toMs: NOW - DAY, bucket: "hour" }, 30, undefined]
  ] as const)("%s", (_name, q, window, historyDays, expected) => {
    expect(previousWindow(q, window, historyDays, NOW)).toEqual(expected)
  })
})
