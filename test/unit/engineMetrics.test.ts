import { describe, expect, it } from "vitest"
import { AnswerCounts, outcomeOf } from "../../engine/ops/answerCounts.ts"
import { type EngineSnapshot, engineMetrics, recordBusLag } from "../../engine/ops/engineMetrics.ts"

const snapshot = (over: Partial<EngineSnapshot> = {}): EngineSnapshot => ({
  answers: [],
  busConnected: true,
  busReconnects: 0,
  cacheEntries: 3,
  cacheBytes: 1200,
  cacheHits: 40,
  cacheQueries: 5,
  slugFilterRefusals: 2,
  databaseFailures: 0,
  staleAnswers: 0,
  clicksAcknowledged: 10,
  clicksRolled: 7,
  clicksPending: 3,
  clicksDropped: 0,
  ...over
})

const value = (text: string, series: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `))
  if (line === undefined) throw new Error(`no ${series} in\n${text}`)
  return Number(line.slice(series.length + 1))
}

describe("outcomeOf", () => {
  it.each([[302, "redirect"], [301, "redirect"], [200, "page"], [404, "not_found"], [410, "not_found"], [401, "refused"], [503, "failure"], [304, "other"]])(
    "%i is %s",
    (status, outcome) => expect(outcomeOf(status)).toBe(outcome)
  )
})

describe("engineMetrics", () => {
  it("exports answers by outcome and status, and counters that only grow with the engine's totals", () => {
    const answers = new AnswerCounts()
    const render = engineMetrics()
    answers.record(302)
    answers.record(302)
    answers.record(404)
    const first = render(snapshot({ answers: answers.snapshot() }))
    expect(value(first, `ricochet_engine_answers_total{outcome="redirect",status="302"}`)).toBe(2)
    expect(value(first, `ricochet_engine_answers_total{outcome="not_found",status="404"}`)).toBe(1)
    expect(value(first, "ricochet_engine_clicks_acknowledged_total")).toBe(10)
    expect(value(first, "ricochet_engine_cache_bytes")).toBe(1200)
    expect(value(first, "ricochet_engine_cache_hits_total")).toBe(40)
    expect(value(first, "ricochet_engine_cache_misses_total")).toBe(5)
    expect(first).toMatch(/# TYPE ricochet_engine_answers_total counter/)

    answers.record(302)
    const second = render(snapshot({ answers: answers.snapshot(), clicksAcknowledged: 25, busConnected: false, cacheEntries: 1 }))
    expect(value(second, `ricochet_engine_answers_total{outcome="redirect",status="302"}`)).toBe(3)
    expect(value(second, "ricochet_engine_clicks_acknowledged_total")).toBe(25)
    expect(value(second, "ricochet_engine_bus_connected")).toBe(0)
    expect(value(second, "ricochet_engine_cache_entries")).toBe(1)
  })

  it("bus lag: a histogram of how late change events arrive, never negative when clocks disagree", () => {
    const render = engineMetrics()
    const now = 1_795_000_000_000
    recordBusLag(now - 200, now)
    recordBusLag(now - 3_000, now)
    recordBusLag(now + 500, now)
    const text = render(snapshot())
    expect(value(text, `ricochet_engine_bus_lag_seconds_bucket{le="0.005"}`)).toBe(1)
    expect(value(text, `ricochet_engine_bus_lag_seconds_bucket{le="0.25"}`)).toBe(2)
    expect(value(text, `ricochet_engine_bus_lag_seconds_bucket{le="5"}`)).toBe(3)
    expect(value(text, "ricochet_engine_bus_lag_seconds_count")).toBe(3)
    expect(value(text, "ricochet_engine_bus_lag_seconds_sum")).toBeCloseTo(3.2)
  })
})
