import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { createServer } from "node:http"
import type { Sql } from "postgres"
import { ChangeBus } from "../../shared/bus/ChangeBus.ts"
import { Database, DatabaseError } from "../../shared/db/Database.ts"
import { processMetrics } from "../../shared/ops/processMetrics.ts"
import { renderFamilies } from "../../shared/ops/prometheusText.ts"
import { API_ROUTES } from "./apiRoutes.ts"
import { readinessRoute } from "../ops/readiness.ts"
import { countUnpublished } from "../outbox/outbox.ts"
import { registerKnownSeries } from "../ops/metrics.ts"

/** How long a scrape waits for the outbox count; past it the series is left out of that scrape. */
const BACKLOG_TIMEOUT_MS = 1_000

/** Paths a 429 can be answered on: every declared route, the API's documents, and unknown /v1 paths. */
const LIMITED_ROUTES = [...new Set(API_ROUTES.map((route) => route.path)), "/v1/openapi.json", "/v1/docs", "unmatched"]

/** The outbox's backlog now; undefined when the database does not answer in time (no stale figure is served). */
const outboxBacklog = (sql: Sql): Effect.Effect<number | undefined> =>
  Effect.tryPromise({ try: () => countUnpublished(sql), catch: (cause) => new DatabaseError({ cause }) }).pipe(
    Effect.timeoutOrElse({ duration: BACKLOG_TIMEOUT_MS, orElse: () => Effect.succeed(undefined) }),
    Effect.catchTag("DatabaseError", () => Effect.succeed(undefined))
  )

/** Read when scraped: the bus's state, and the outbox's backlog (what waits for the bus, or for a publisher). */
const stateNow = Effect.gen(function*() {
  const { sql } = yield* Database
  const bus = yield* ChangeBus
  const backlog = yield* outboxBacklog(sql)
  return renderFamilies([
    {
      name: "ricochet_control_bus_connected",
      help: "1 while control is connected to the change bus; without it changes wait in the outbox",
      type: "gauge",
      samples: [{ value: bus.isConnected() ? 1 : 0 }]
    },
    {
      name: "ricochet_control_outbox_unpublished_events",
      help: "Change events committed to the outbox and not yet published to the bus (grows while the bus is down); absent when the database did not answer within 1 s",
      type: "gauge",
      samples: backlog === undefined ? [] : [{ value: backlog }]
    }
  ])
})

const json = (status: number, body: unknown) => HttpServerResponse.jsonUnsafe(body, { status, headers: { "cache-control": "no-store" } })

/**
 * Control's operator port (RICOCHET_CONTROL_ADMIN_HOST/PORT): /healthz, /readyz and /metrics,
 * like the engine's, apart from the API port so that metrics are not answered to whoever reaches
 * the API. /metrics serves control's series, the bus and outbox gauges, and the process's own
 * (process and Node.js figures, build info: control carries them for the process it runs in).
 * /healthz and /readyz are answered on the API port too, where load balancers often probe.
 */
export const ControlAdminServerLayer = (host: string, port: number) =>
  Layer.unwrap(Effect.gen(function*() {
    const processWide = processMetrics()
    yield* registerKnownSeries(LIMITED_ROUTES)
    const metrics = Effect.gen(function*() {
      const body = (yield* PrometheusMetrics.format()) + (yield* stateNow) + processWide()
      return HttpServerResponse.text(body, { contentType: "text/plain; version=0.0.4; charset=utf-8", headers: { "cache-control": "no-store" } })
    })
    const app = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (request.method !== "GET" && request.method !== "HEAD") return json(405, { error: { code: "method_not_allowed", message: "Only GET" } })
      switch (new URL(request.url, "http://localhost").pathname) {
        case "/healthz":
          return json(200, { status: "ok" })
        case "/readyz":
          return yield* readinessRoute
        case "/metrics":
          return yield* metrics
        default:
          return json(404, { error: { code: "not_found", message: "The operator port serves /healthz, /readyz and /metrics" } })
      }
    })
    return HttpServer.serve(app).pipe(Layer.provide(NodeHttpServer.layer(() => createServer(), { port, host })))
  }))
