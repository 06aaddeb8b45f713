import { Effect, Metric } from "effect"
import { HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"

/** Webhook deliveries by result (`delivered`, `failed`, `gave_up`…): the delivery code calls countWebhookDelivery. */
const webhookDeliveries = Metric.counter("ricochet_control_webhook_deliveries_total", {
  description: "Webhook deliveries attempted, by result",
  incremental: true
})

export const countWebhookDelivery = (result: string) =>
  Metric.update(Metric.withAttributes(webhookDeliveries, { result }), 1)

/** Domain checks by result: `ok` (the records are right) or `wrong`; with several controls, each domain is counted by the one that checked it. */
const domainChecks = Metric.counter("ricochet_control_domain_checks_total", {
  description: "Custom domain DNS checks, by result",
  incremental: true
})

export const countDomainCheck = (result: string) =>
  Metric.update(Metric.withAttributes(domainChecks, { result }), 1)

/** GET /metrics on control's port: every Effect metric of this process in the Prometheus text format. */
export const metricsRoute = Effect.map(
  PrometheusMetrics.format(),
  (body) => HttpServerResponse.text(body, { contentType: "text/plain; version=0.0.4; charset=utf-8", headers: { "cache-control": "no-store" } })
)
