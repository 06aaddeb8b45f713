import type { ClickCounts } from "../../shared/clicks/writerMessages.ts"
import type { WorkerStats } from "../../shared/engine/httpWorkerMessages.ts"
import type { LinkCache } from "../cache/linkCache.ts"
import { addCounts } from "../../shared/ops/fixedHistogram.ts"
import { ANSWER_LATENCY_MS, type AnswerCounts } from "./answerCounts.ts"
import type { EngineSnapshot } from "./engineMetrics.ts"

/** What one cache and its server counted: a worker's share of the engine's status and metrics. */
export const statsOf = (cache: LinkCache, answers: AnswerCounts): WorkerStats => {
  const size = cache.size
  return {
    links: size.links,
    domains: size.domains,
    bytes: size.bytes,
    filters: size.filters,
    hits: cache.hits,
    queries: cache.queries,
    filtered: cache.filtered,
    databaseFailures: cache.sourceFailures,
    staleAnswers: cache.staleAnswers,
    blockingLoads: cache.blockingLoads,
    answers: answers.snapshot(),
    latency: answers.latencySnapshot()
  }
}

/** The engine's totals over its workers. */
export const sumStats = (all: ReadonlyArray<WorkerStats>): WorkerStats => {
  const answers = new Map<number, number>()
  for (const stats of all) for (const [status, count] of stats.answers) answers.set(status, (answers.get(status) ?? 0) + count)
  const total = (field: Exclude<keyof WorkerStats, "answers" | "latency">) => all.reduce((sum, stats) => sum + stats[field], 0)
  return {
    links: total("links"),
    domains: total("domains"),
    bytes: total("bytes"),
    filters: total("filters"),
    hits: total("hits"),
    queries: total("queries"),
    filtered: total("filtered"),
    databaseFailures: total("databaseFailures"),
    staleAnswers: total("staleAnswers"),
    blockingLoads: total("blockingLoads"),
    answers: [...answers].sort(([a], [b]) => a - b),
    latency: addCounts(all.map((stats) => stats.latency), ANSWER_LATENCY_MS.length + 1)
  }
}

export interface ClickFigures {
  readonly counts: ClickCounts
  readonly dropped: number
}

/** The loopback status page's body (`/.well-known/ricochet/status`). */
export const statusOf = (stats: WorkerStats, busConnected: boolean, clicks: ClickFigures, each: ReadonlyArray<WorkerStats>) => ({
  status: "ok",
  bus: busConnected ? "connected" : "disconnected",
  workers: each.length,
  cache: { links: stats.links, domains: stats.domains, bytes: stats.bytes, filters: stats.filters },
  hits: stats.hits,
  queries: stats.queries,
  filtered: stats.filtered,
  databaseFailures: stats.databaseFailures,
  staleAnswers: stats.staleAnswers,
  blockingLoads: stats.blockingLoads,
  clicks: clicks.counts.clicks,
  sink: clicks.counts.sink,
  /** RICOCHET_CLICKS_TRANSPORT=bucket: Parquet files waiting for the click bucket (bounded by RICOCHET_CLICKS_OUTBOX_MB), files sent. */
  clicksOutbox: clicks.counts.outbox,
  clicksDropped: clicks.dropped,
  /** Each HTTP worker's share, when there are several. */
  ...(each.length > 1 ? { perWorker: each.map(({ answers, latency: _latency, ...cache }) => ({ ...cache, answered: answers.reduce((sum, [, n]) => sum + n, 0) })) } : {})
})

/** What /metrics exports. */
export const snapshotOf = (stats: WorkerStats, busConnected: boolean, busReconnects: number, clicks: ClickFigures): EngineSnapshot => ({
  answers: stats.answers,
  latency: stats.latency,
  busConnected,
  busReconnects,
  cacheEntries: stats.links + stats.domains,
  cacheBytes: stats.bytes,
  cacheHits: stats.hits,
  cacheQueries: stats.queries,
  slugFilterRefusals: stats.filtered,
  databaseFailures: stats.databaseFailures,
  staleAnswers: stats.staleAnswers,
  clicksAcknowledged: clicks.counts.sink.acknowledged,
  clicksRolled: clicks.counts.sink.rolled,
  clicksWaitingForDisk: clicks.counts.sink.pending,
  clicksUnrolled: clicks.counts.sink.unrolled,
  clickFilesWaiting: clicks.counts.outbox.files,
  clickBytesWaiting: clicks.counts.outbox.bytes,
  clickFilesSent: clicks.counts.outbox.uploaded,
  clicksDropped: clicks.dropped
})
