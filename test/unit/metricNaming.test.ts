import { Effect, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { describe, expect, it } from "vitest"
import { observeAnalyticsQuery, registerKnownSeries } from "../../control/ops/metrics.ts"
import { ANSWER_LATENCY_MS } from "../../engine/ops/answerCounts.ts"
import { engineMetrics } from "../../engine/ops/engineMetrics.ts"
import { processMetrics } from "../../shared/ops/processMetrics.ts"
import { namingProblems } from "../support/prometheusRules.ts"

const family = (type: string, name: string, samples: string, help = "What it counts") => `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${samples}\n`

describe("the naming rules (promtool check metrics, the Prometheus naming guide)", () => {
  it.each([
    ["a camelCase label (what control served as analytics' groupBy)", family("histogram", "ricochet_control_analytics_query_duration_seconds", `ricochet_control_analytics_query_duration_seconds_count{groupBy="countries"} 1`), "label groupBy is not snake_case"],
    ["a counter without _total", family("counter", "ricochet_engine_answers", "ricochet_engine_answers 3"), "must end in _total"],
    ["a gauge with _total", family("gauge", "ricochet_cache_total", "ricochet_cache_total 3"), "only counters end in _total"],
    ["no HELP", `# TYPE ricochet_x_total counter\nricochet_x_total 1\n`, "no HELP"],
    ["no TYPE", `ricochet_x_total 1\n`, "no TYPE"],
    ["a camelCase metric name", family("gauge", "ricochet_cacheBytes", "ricochet_cacheBytes 1"), "not snake_case"],
    ["milliseconds", family("gauge", "ricochet_lag_ms", "ricochet_lag_ms 1"), "base units"],
    ["a histogram without its unit", family("histogram", "ricochet_latency", `ricochet_latency_count 1`), "must end in its unit"],
    ["a series twice", family("counter", "ricochet_x_total", `ricochet_x_total{a="1"} 1\nricochet_x_total{a="1"} 2`), "served twice"]
  ])("%s is refused", (_case, text, problem) => {
    expect(namingProblems(text).join("\n")).toContain(problem)
  })

  it("control's registry follows them, labelled counters included (at 0)", () => {
    // A registry of its own: other test files sharing the process (the unit project) count in the default one.
    const text = Effect.runSync(Effect.provideService(Effect.gen(function*() {
      yield* registerKnownSeries(["/v1/links", "/v1/links/:id"])
      yield* observeAnalyticsQuery("countries", Effect.void)
      return yield* PrometheusMetrics.format()
    }), Metric.MetricRegistry, new Map()))
    expect(namingProblems(text)).toEqual([])
    expect(text).toContain(`ricochet_control_analytics_query_duration_seconds_count{group_by="countries"} 1`)
  })

  it("the engine's metrics follow them", () => {
    const text = engineMetrics().render({
      answers: [[302, 4]],
      latency: { counts: new Array(ANSWER_LATENCY_MS.length + 1).fill(1), sum: 3 },
      busConnected: true,
      busReconnects: 0,
      cacheEntries: 1,
      cacheBytes: 1,
      cacheHits: 1,
      cacheQueries: 1,
      slugFilterRefusals: 0,
      databaseFailures: 0,
      staleAnswers: 0,
      clicksAcknowledged: 1,
      clicksRolled: 1,
      clicksWaitingForDisk: 0,
      clicksUnrolled: 0,
      clickFilesWaiting: 2,
      clickBytesWaiting: 4096,
      clickFilesSent: 9,
      clicksDropped: 0
    })
    expect(namingProblems(text)).toEqual([])
  })

  it("the process's metrics follow them", () => {
    expect(namingProblems(processMetrics()())).toEqual([])
  })
})
