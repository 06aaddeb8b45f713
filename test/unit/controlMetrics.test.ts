import { Effect } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { describe, expect, it } from "vitest"
import { countDomainCheck, countWebhookDelivery } from "../../control/ops/metrics.ts"

describe("control metrics", () => {
  it("counts webhook deliveries and domain checks by result, in the Prometheus format", () => {
    const text = Effect.runSync(Effect.gen(function*() {
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
})
