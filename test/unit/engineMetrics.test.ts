import { Effect } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { describe, expect, it } from "vitest"
import { countWebhookDelivery } from "../../control/ops/metrics.ts"
import { ANSWER_LATENCY_MS, AnswerCounts, outcomeOf } from "../../engine/ops/answerCounts.ts"
import { type EngineSnapshot, engineMetrics } from "../../engine/ops/engineMetrics.ts"
import { sumStats } from "../../engine/ops/engineStatus.ts"

const snapshot = (over: Partial<EngineSnapshot> = {}): EngineSnapshot => ({
  answers: [],
  latency: { counts: new Array(ANSWER_LATENCY_MS.length + 1).fill(0), sum: 0 },
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
  clicksWaitingForDisk: 3,
  clicksUnrolled: 1273,
  clickFilesWaiting: 2,
  clickBytesWaiting: 4096,
  clickFilesSent: 9,
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
    const { render } = engineMetrics()
    answers.record(302, 0.02)
    answers.record(302, 0.02)
    answers.record(404, 0.02)
    const first = render(snapshot({ answers: answers.snapshot() }))
    expect(value(first, `ricochet_engine_answers_total{outcome="redirect",status="302"}`)).toBe(2)
    expect(value(first, `ricochet_engine_answers_total{outcome="not_found",status="404"}`)).toBe(1)
    expect(value(first, "ricochet_engine_clicks_acknowledged_total")).toBe(10)
    expect(value(first, "ricochet_engine_cache_bytes")).toBe(1200)
    expect(value(first, "ricochet_engine_cache_hits_total")).toBe(40)
    expect(value(first, "ricochet_engine_cache_misses_total")).toBe(5)
    expect(first).toMatch(/# TYPE ricochet_engine_answers_total counter/)

    answers.record(302, 0.02)
    const second = render(snapshot({ answers: answers.snapshot(), clicksAcknowledged: 25, busConnected: false, cacheEntries: 1 }))
    expect(value(second, `ricochet_engine_answers_total{outcome="redirect",status="302"}`)).toBe(3)
    expect(value(second, "ricochet_engine_clicks_acknowledged_total")).toBe(25)
    expect(value(second, "ricochet_engine_bus_connected")).toBe(0)
    expect(value(second, "ricochet_engine_cache_entries")).toBe(1)
  })

  it("bus lag: a histogram of how late change events arrive, never negative when clocks disagree", () => {
    const { render, recordBusLag } = engineMetrics()
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

describe("engineMetrics, what an operator reads before anything happened", () => {
  it("shows every status the engine answers with at 0, by outcome, before its first answer", () => {
    const text = engineMetrics().render(snapshot())
    for (const [status, outcome] of [[302, "redirect"], [301, "redirect"], [200, "page"], [404, "not_found"], [410, "not_found"], [403, "refused"], [500, "failure"], [503, "failure"], [429, "other"]] as const) {
      expect(value(text, `ricochet_engine_answers_total{outcome="${outcome}",status="${status}"}`)).toBe(0)
    }
    expect(text).toMatch(/# TYPE ricochet_engine_bus_lag_seconds histogram/)
  })

  it("shows the click bucket's outbox: files and bytes waiting, files sent", () => {
    const text = engineMetrics().render(snapshot({ clickFilesWaiting: 2, clickBytesWaiting: 4096, clickFilesSent: 9 }))
    expect(value(text, "ricochet_engine_click_outbox_files")).toBe(2)
    expect(value(text, "ricochet_engine_click_outbox_bytes")).toBe(4096)
    expect(value(text, "ricochet_engine_click_files_sent_total")).toBe(9)
  })

  it("says what the spool's two gauges count: clicks waiting for the disk, and acknowledged clicks not yet rolled", () => {
    const text = engineMetrics().render(snapshot({ clicksWaitingForDisk: 0, clicksUnrolled: 1273 }))
    expect(value(text, "ricochet_engine_clicks_waiting_for_disk")).toBe(0)
    expect(value(text, "ricochet_engine_spool_unrolled_clicks")).toBe(1273)
    expect(text).toMatch(/# HELP ricochet_engine_spool_unrolled_clicks .*not yet rolled into Parquet/)
    expect(text).not.toContain("spool_pending_clicks")
  })

  it("serves its own registry: control's series (Effect's default registry) are not on the engine's /metrics", () => {
    Effect.runSync(countWebhookDelivery("delivered"))
    const engine = engineMetrics().render(snapshot())
    expect(engine).not.toContain("ricochet_control_")
    const control = Effect.runSync(PrometheusMetrics.format())
    expect(control).toContain("ricochet_control_webhook_deliveries_total")
    expect(control).not.toContain("ricochet_engine_")
  })
})

describe("answer latency", () => {
  it("is a histogram in seconds over every worker's buckets", () => {
    const one = new AnswerCounts()
    const two = new AnswerCounts()
    one.record(302, 0.02) // 20 µs: the first bucket (25 µs)
    one.record(302, 0.03) // 50 µs
    two.record(404, 0.05) // exactly on the 50 µs boundary: counted in it
    two.record(200, 40) // 50 ms
    two.record(503, 20_000) // past the last boundary
    const stats = (answers: AnswerCounts) => ({
      links: 0, domains: 0, bytes: 0, filters: 0, hits: 0, queries: 0, filtered: 0, databaseFailures: 0, staleAnswers: 0, blockingLoads: 0,
      answers: answers.snapshot(),
      latency: answers.latencySnapshot()
    })
    const total = sumStats([stats(one), stats(two)])
    const text = engineMetrics().render(snapshot({ answers: total.answers, latency: total.latency }))
    const bucket = (le: string) => value(text, `ricochet_engine_answer_duration_seconds_bucket{le="${le}"}`)
    expect(bucket("0.000025")).toBe(1)
    expect(bucket("0.00005")).toBe(3)
    expect(bucket("0.025")).toBe(3)
    expect(bucket("0.05")).toBe(4)
    expect(bucket("10")).toBe(4)
    expect(bucket("+Inf")).toBe(5)
    expect(value(text, "ricochet_engine_answer_duration_seconds_count")).toBe(5)
    expect(value(text, "ricochet_engine_answer_duration_seconds_sum")).toBeCloseTo(20.0401, 6)
    expect(text).toMatch(/# TYPE ricochet_engine_answer_duration_seconds histogram/)
  })
})
