import { Effect, Exit, Metric, Predicate } from "effect"

/**
 * Control's metrics, in Effect's default registry (the engine keeps its own: under `npm start`
 * each /metrics serves its own series). Served on the operator port (adminServer.ts). Label names
 * are snake_case, and labelled counters show every value they can take from the start, at 0.
 */

/**
 * Webhook delivery attempts by result: `delivered`, `failed` (retried later), `gave_up` (its 24 h
 * are over); and `dropped`, deliveries never sent because their webhook's backlog overflowed.
 */
export const WEBHOOK_DELIVERY_RESULTS = ["delivered", "failed", "gave_up", "dropped"] as const
const webhookDeliveries = Metric.counter("ricochet_control_webhook_deliveries_total", {
  description: "Webhook deliveries attempted, by result",
  incremental: true
})

export const countWebhookDelivery = (result: (typeof WEBHOOK_DELIVERY_RESULTS)[number], count = 1) =>
  Metric.update(Metric.withAttributes(webhookDeliveries, { result }), count)

/** Domain checks by result: `ok` (the records are right) or `wrong`; with several controls, each domain is counted by the one that checked it. */
export const DOMAIN_CHECK_RESULTS = ["ok", "wrong"] as const
const domainChecks = Metric.counter("ricochet_control_domain_checks_total", {
  description: "Custom domain DNS checks, by result",
  incremental: true
})

export const countDomainCheck = (result: (typeof DOMAIN_CHECK_RESULTS)[number]) =>
  Metric.update(Metric.withAttributes(domainChecks, { result }), 1)

/**
 * With the click bucket transport: objects the mirror applied to this control's clicks directory
 * (`downloaded`, `removed`), and whether it follows the bucket live (its history applied).
 */
export const CLICK_MIRROR_CHANGES = ["downloaded", "removed"] as const
const clickMirrorFiles = Metric.counter("ricochet_control_click_mirror_files_total", {
  description: "Click bucket objects the mirror applied to this control's clicks directory since start, by change",
  incremental: true
})
const clickMirrorFollowing = Metric.gauge("ricochet_control_click_mirror_following", {
  description: "1 while the click mirror follows the bucket live (its history applied); 0 while it starts, catches up or cannot reach NATS"
})

export const countClickMirrorChange = (change: (typeof CLICK_MIRROR_CHANGES)[number], count: number) =>
  Metric.update(Metric.withAttributes(clickMirrorFiles, { change }), count)
export const setClickMirrorFollowing = (following: boolean) => Metric.update(clickMirrorFollowing, following ? 1 : 0)

/** Seconds: from a millisecond API answer to the database deadline and past it. */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

const apiRequests = Metric.counter("ricochet_control_http_requests_total", {
  description: "HTTP requests answered by control, by method, route (the declared path template) and status",
  incremental: true
})
const apiLatency = Metric.histogram("ricochet_control_http_request_duration_seconds", {
  description: "Time from a request's arrival to its answer, by method and route",
  boundaries: SECONDS
})
const rateLimitRefusals = Metric.counter("ricochet_control_rate_limit_refusals_total", {
  description: "Requests refused 429 by a rate limit, by route",
  incremental: true
})

/** One answered request: its count, latency and, for a 429, the refusal. */
export const countApiRequest = (method: string, route: string, status: number, seconds: number) =>
  Effect.all([
    Metric.update(Metric.withAttributes(apiRequests, { method, route, status: String(status) }), 1),
    Metric.update(Metric.withAttributes(apiLatency, { method, route }), seconds),
    status === 429 ? Metric.update(Metric.withAttributes(rateLimitRefusals, { route }), 1) : Effect.void
  ], { discard: true })

const databaseCalls = Metric.histogram("ricochet_control_db_query_duration_seconds", {
  description: "Database calls of the API and background jobs (a query, or a whole transaction) by outcome: ok, unavailable, error",
  boundaries: SECONDS
})
export const databaseInFlight = Metric.gauge("ricochet_control_db_calls_in_flight", {
  description: "Database calls waiting for an answer now: how much of the pool is in use"
})
/**
 * Around one database call: in flight while it runs (the gauge moved by one each way, so it
 * lives in the metric registry, not in this module), then its time by outcome.
 */
export const observeDatabaseCall = <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const started = performance.now()
    return Effect.andThen(Metric.modify(databaseInFlight, 1), call).pipe(
      Effect.onExit((exit) => {
        const outcome = Exit.isSuccess(exit)
          ? "ok"
          : exit.cause.reasons.some((reason) => reason._tag === "Fail" && Predicate.isTagged(reason.error, "DatabaseUnavailable"))
          ? "unavailable"
          : "error"
        return Effect.all([
          Metric.modify(databaseInFlight, -1),
          Metric.update(Metric.withAttributes(databaseCalls, { outcome }), (performance.now() - started) / 1000)
        ], { discard: true })
      })
    )
  })

const analyticsQueries = Metric.histogram("ricochet_control_analytics_query_duration_seconds", {
  description: "Analytics questions answered by DuckDB, by group_by (the API's groupBy)",
  boundaries: SECONDS
})

/** Times one analytics question. */
export const observeAnalyticsQuery = <A, E, R>(groupBy: string, question: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const started = performance.now()
    return Effect.onExit(question, () =>
      Metric.update(Metric.withAttributes(analyticsQueries, { group_by: groupBy }), (performance.now() - started) / 1000))
  })

/**
 * Every labelled counter at each value it can take, adding 0: a series exists (at 0) before its
 * first event, so a rate or an alert on it has something to read. `routes` are the paths a 429
 * can be answered on.
 */
export const registerKnownSeries = (routes: ReadonlyArray<string>) =>
  Effect.all([
    ...WEBHOOK_DELIVERY_RESULTS.map((result) => countWebhookDelivery(result, 0)),
    ...DOMAIN_CHECK_RESULTS.map((result) => Metric.update(Metric.withAttributes(domainChecks, { result }), 0)),
    ...routes.map((route) => Metric.update(Metric.withAttributes(rateLimitRefusals, { route }), 0))
  ], { discard: true })
