import { Effect, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { outcomeOf } from "./answerCounts.ts"

/** The engine's counts as its status snapshot reports them; read when Prometheus scrapes. */
export interface EngineSnapshot {
  /** Answers by HTTP status: [status, count] for each status answered at least once. */
  readonly answers: ReadonlyArray<readonly [number, number]>
  readonly busConnected: boolean
  readonly busReconnects: number
  readonly cacheEntries: number
  readonly cacheBytes: number
  readonly cacheHits: number
  readonly cacheQueries: number
  readonly slugFilterRefusals: number
  readonly databaseFailures: number
  readonly staleAnswers: number
  readonly clicksAcknowledged: number
  readonly clicksRolled: number
  readonly clicksPending: number
  readonly clicksDropped: number
}

// Totals kept by the engine are monotonic: each scrape adds what grew since the last one, so the
// exported series are true Prometheus counters.
const counter = (name: string, description: string) => Metric.counter(name, { description, incremental: true })

const redirects = counter("ricochet_engine_answers_total", "Short-link answers by outcome and HTTP status")
const cacheHits = counter("ricochet_engine_cache_hits_total", "Link lookups answered from the cache (links and known-missing slugs)")
const cacheMisses = counter("ricochet_engine_cache_misses_total", "Lookups the cache could not answer (database queries)")
const filterRefusals = counter("ricochet_engine_slug_filter_refusals_total", "Unknown slugs the slug filter answered without a database query")
const databaseFailures = counter("ricochet_engine_database_failures_total", "Database lookups that failed")
const staleAnswers = counter("ricochet_engine_stale_answers_total", "Answers served from an expired cache entry while the database failed")
const busReconnects = counter("ricochet_engine_bus_reconnects_total", "Reconnections to the change bus")
const clicksAcknowledged = counter("ricochet_engine_clicks_acknowledged_total", "Clicks written to the spool and acknowledged")
const clicksRolled = counter("ricochet_engine_clicks_rolled_total", "Clicks rolled into Parquet files")
const clicksDropped = counter("ricochet_engine_clicks_dropped_total", "Clicks dropped (writer backlogged or spool disk refusing writes)")
const cacheEntries = Metric.gauge("ricochet_engine_cache_entries", { description: "Links and domains held in the cache" })
const cacheBytes = Metric.gauge("ricochet_engine_cache_bytes", { description: "Estimated bytes held by the cache" })
const spoolPending = Metric.gauge("ricochet_engine_spool_pending_clicks", { description: "Clicks in the spool not yet rolled into Parquet" })
const busConnected = Metric.gauge("ricochet_engine_bus_connected", { description: "1 while the change bus is connected" })

const busLag = Metric.histogram("ricochet_engine_bus_lag_seconds", {
  description: "From a change being made in control (its outbox row) to this engine applying it; includes the clocks' skew between machines",
  boundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]
})

/** Records how late a change event arrived (rare next to visits: one per change, so recorded as it comes). */
export const recordBusLag = (changedAt: number, now = Date.now()): void =>
  Effect.runSync(Metric.update(busLag, Math.max(0, now - changedAt) / 1000))

/** Renders the engine's metrics in the Prometheus text format, catching the counters up first. */
export const engineMetrics = () => {
  const reported = new Map<string, number>()
  const grow = (metric: Metric.Metric<number, unknown>, key: string, total: number) => {
    const delta = total - (reported.get(key) ?? 0)
    reported.set(key, total)
    return Metric.update(metric, Math.max(0, delta))
  }
  return (now: EngineSnapshot): string =>
    Effect.runSync(Effect.gen(function*() {
      for (const [status, count] of now.answers) {
        yield* grow(Metric.withAttributes(redirects, { outcome: outcomeOf(status), status: String(status) }), `answers:${status}`, count)
      }
      yield* grow(cacheHits, "hits", now.cacheHits)
      yield* grow(cacheMisses, "misses", now.cacheQueries)
      yield* grow(filterRefusals, "filter", now.slugFilterRefusals)
      yield* grow(databaseFailures, "dbFailures", now.databaseFailures)
      yield* grow(staleAnswers, "stale", now.staleAnswers)
      yield* grow(busReconnects, "reconnects", now.busReconnects)
      yield* grow(clicksAcknowledged, "acknowledged", now.clicksAcknowledged)
      yield* grow(clicksRolled, "rolled", now.clicksRolled)
      yield* grow(clicksDropped, "dropped", now.clicksDropped)
      yield* Metric.update(cacheEntries, now.cacheEntries)
      yield* Metric.update(cacheBytes, now.cacheBytes)
      yield* Metric.update(spoolPending, now.clicksPending)
      yield* Metric.update(busConnected, now.busConnected ? 1 : 0)
      return yield* PrometheusMetrics.format()
    }))
}
