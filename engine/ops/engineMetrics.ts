import { Context, Effect, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { asSeries, type HistogramCounts } from "../../shared/ops/fixedHistogram.ts"
import { renderFamilies } from "../../shared/ops/prometheusText.ts"
import { ANSWER_STATUSES } from "../http/respond.ts"
import { ANSWER_LATENCY_MS, outcomeOf } from "./answerCounts.ts"

/** The engine's counts as its status snapshot reports them; read when Prometheus scrapes. */
export interface EngineSnapshot {
  /** Answers by HTTP status: [status, count] for each status answered at least once. */
  readonly answers: ReadonlyArray<readonly [number, number]>
  /** Answer latency in milliseconds, per bucket of ANSWER_LATENCY_MS, over every HTTP worker. */
  readonly latency: HistogramCounts
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
  /** Clicks held in memory until the spool's disk takes them (not yet acknowledged). */
  readonly clicksWaitingForDisk: number
  /** Clicks on disk in the spool (acknowledged) not yet rolled into Parquet. */
  readonly clicksUnrolled: number
  /** Bucket transport: Parquet files (and bytes) waiting on disk for the click bucket; files sent since start. */
  readonly clickFilesWaiting: number
  readonly clickBytesWaiting: number
  readonly clickFilesSent: number
  readonly clicksDropped: number
}

/**
 * Whether the engine's /metrics carries the process's series (shared/ops/processMetrics.ts):
 * yes when it runs alone (`ricochet engine`); `npm start` says no, as control's /metrics carries
 * them for the one process both run in.
 */
export const EngineServesProcessMetrics = Context.Reference<boolean>("ricochet/EngineServesProcessMetrics", { defaultValue: () => true })

// Totals kept by the engine are monotonic: each scrape adds what grew since the last one, so the
// exported series are true Prometheus counters.
const counter = (name: string, description: string) => Metric.counter(name, { description, incremental: true })

const answersTotal = counter("ricochet_engine_answers_total", "Short-link answers by outcome and HTTP status")
const cacheHits = counter("ricochet_engine_cache_hits_total", "Link lookups answered from the cache (links and known-missing slugs)")
const cacheMisses = counter("ricochet_engine_cache_misses_total", "Lookups the cache could not answer (database queries)")
const filterRefusals = counter("ricochet_engine_slug_filter_refusals_total", "Unknown slugs the slug filter answered without a database query")
const databaseFailures = counter("ricochet_engine_database_failures_total", "Database lookups that failed")
const staleAnswers = counter("ricochet_engine_stale_answers_total", "Answers served from an expired cache entry while the database failed")
const busReconnects = counter("ricochet_engine_bus_reconnects_total", "Reconnections to the change bus")
const clicksAcknowledged = counter("ricochet_engine_clicks_acknowledged_total", "Clicks written to the spool and fsynced (acknowledged), since start")
const clicksRolled = counter("ricochet_engine_clicks_rolled_total", "Clicks rolled from the spool into Parquet files, since start")
const clicksDropped = counter("ricochet_engine_clicks_dropped_total", "Clicks dropped (writer backlogged or spool disk refusing writes)")
const cacheEntries = Metric.gauge("ricochet_engine_cache_entries", { description: "Links and domains held in the cache" })
const cacheBytes = Metric.gauge("ricochet_engine_cache_bytes", { description: "Estimated bytes held by the cache" })
const clicksWaitingForDisk = Metric.gauge("ricochet_engine_clicks_waiting_for_disk", {
  description: "Clicks held in memory because the spool's disk has not taken them yet (not acknowledged); above 0 only while the disk is slow or refuses writes"
})
const spoolUnrolled = Metric.gauge("ricochet_engine_spool_unrolled_clicks", {
  description: "Clicks on disk in the spool (acknowledged, or left by an earlier run) not yet rolled into Parquet, so not yet in analytics"
})
const clickFilesWaiting = Metric.gauge("ricochet_engine_click_outbox_files", {
  description: "Parquet click files waiting on disk for the click bucket (RICOCHET_CLICKS_TRANSPORT=bucket); above 0 for long only while NATS is away"
})
const clickBytesWaiting = Metric.gauge("ricochet_engine_click_outbox_bytes", {
  description: "Bytes of the click files waiting for the click bucket; at RICOCHET_CLICKS_OUTBOX_MB new clicks are dropped"
})
const clickFilesSent = counter("ricochet_engine_click_files_sent_total", "Parquet click files put into the click bucket and deleted here, since start")
const busConnected = Metric.gauge("ricochet_engine_bus_connected", { description: "1 while the change bus is connected" })

const busLag = Metric.histogram("ricochet_engine_bus_lag_seconds", {
  description: "From a change being made in control (its outbox row) to this engine applying it; includes the clocks' skew between machines",
  boundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]
})


const latencyText = (latency: HistogramCounts) =>
  renderFamilies([{
    name: "ricochet_engine_answer_duration_seconds",
    help: "From the engine's handler receiving a short-link request to its answer being written (redirects, pages and errors; a miss includes its database query)",
    type: "histogram",
    series: [asSeries(ANSWER_LATENCY_MS, latency, 0.001)]
  }])

/**
 * One engine's metrics, in a registry of their own: under `npm start` control's live in Effect's
 * default one in the same process, and each /metrics serves its own series only. `render` gives
 * the Prometheus text, catching the counters up with the engine's totals first.
 */
export const engineMetrics = () => {
  const registry: Metric.MetricRegistry = new Map()
  const inEngineRegistry = <A>(effect: Effect.Effect<A>): A => Effect.runSync(Effect.provideService(effect, Metric.MetricRegistry, registry))
  const reported = new Map<string, number>()
  const grow = (metric: Metric.Metric<number, unknown>, key: string, total: number) => {
    const delta = total - (reported.get(key) ?? 0)
    reported.set(key, total)
    return Metric.update(metric, Math.max(0, delta))
  }
  /** How late a change event arrived (rare next to visits: one per change, so recorded as it comes). */
  const recordBusLag = (changedAt: number, now = Date.now()): void =>
    inEngineRegistry(Metric.update(busLag, Math.max(0, now - changedAt) / 1000))
  const render = (now: EngineSnapshot): string =>
    inEngineRegistry(Effect.gen(function*() {
      // Every status the engine can answer is a series from the start, at 0 until it happens.
      const answered = new Map(now.answers)
      for (const status of new Set([...ANSWER_STATUSES, ...answered.keys()])) {
        const attributes = { outcome: outcomeOf(status), status: String(status) }
        yield* grow(Metric.withAttributes(answersTotal, attributes), `answers:${status}`, answered.get(status) ?? 0)
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
      yield* grow(clickFilesSent, "filesSent", now.clickFilesSent)
      yield* Metric.update(cacheEntries, now.cacheEntries)
      yield* Metric.update(cacheBytes, now.cacheBytes)
      yield* Metric.update(clicksWaitingForDisk, now.clicksWaitingForDisk)
      yield* Metric.update(spoolUnrolled, now.clicksUnrolled)
      yield* Metric.update(clickFilesWaiting, now.clickFilesWaiting)
      yield* Metric.update(clickBytesWaiting, now.clickBytesWaiting)
      yield* Metric.update(busConnected, now.busConnected ? 1 : 0)
      // Read once so that the histogram is served (empty) before the first change arrives.
      yield* Metric.value(busLag)
      return (yield* PrometheusMetrics.format()) + latencyText(now.latency)
    }))
  return { render, recordBusLag }
}
