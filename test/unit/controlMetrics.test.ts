import { Effect, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { describe, expect, it } from "vitest"
import { countDomainCheck, countWebhookDelivery, registerKnownSeries } from "../../control/ops/metrics.ts"

/**
 * Runs in a registry of its own: the default one is the process's, and other test files sharing
 * the process (the unit project does not isolate them) count deliveries too.
 */
const inFreshRegistry = <A>(effect: Effect.Effect<A>): A => Effect.runSync(Effect.provideService(effect, Metric.MetricRegistry, new Map()))

describe("control metrics", () => {
  it("counts webhook deliveries and domain checks by result, in the Prometheus format", () => {
    const text = inFreshRegistry(Effect.gen(function*() {
      yield* countWebhookDelivery("delivered")
      yield* countWebhookDelivery("delivered")
      yield* countWebhookDelivery("failed")
      yield* countWebhookDelivery("dropped", 3)
      yield* countDomainCheck("ok")
      return yield* PrometheusMetrics.format()
    }))
    expect(text).toContain(`ricochet_control_webhook_deliveries_total{result="delivered"} 2`)
    expect(text).toContain(`ricochet_control_webhook_deliveries_total{result="failed"} 1`)
    expect(text).toContain(`ricochet_control_webhook_deliveries_total{result="dropped"} 3`)
    expect(text).toContain(`ricochet_control_domain_checks_total{result="ok"} 1`)
    expect(text).toMatch(/# TYPE ricochet_control_webhook_deliveries_total counter/)
  })

  it("shows every labelled counter's values at 0 before they happen: deliveries, domain checks, 429s by route", () => {
    const text = inFreshRegistry(Effect.gen(function*() {
      yield* countWebhookDelivery("delivered")
      yield* countWebhookDelivery("delivered")
      yield* countWebhookDelivery("failed")
      yield* registerKnownSeries(["/v1/links", "/v1/links/:id", "unmatched"])
      return yield* PrometheusMetrics.format()
    }))
    expect(text).toContain(`ricochet_control_webhook_deliveries_total{result="gave_up"} 0`)
    expect(text).toContain(`ricochet_control_domain_checks_total{result="wrong"} 0`)
    for (const route of ["/v1/links", "/v1/links/:id", "unmatched"]) expect(text).toContain(`ricochet_control_rate_limit_refusals_total{route="${route}"} 0`)
    // Adding 0 keeps what was counted before.
    expect(text).toContain(`ricochet_control_webhook_deliveries_total{result="delivered"} 2`)
    expect(text).toContain(`ricochet_control_webhook_deliveries_total{result="failed"} 1`)
  })
})
