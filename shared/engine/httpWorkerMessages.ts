import { Schema } from "effect"
import { ChangeEvent } from "../bus/events.ts"
import { RawClickColumns } from "../clicks/writerMessages.ts"
import { DomainRecord, LinkRecord } from "../links/linkRecord.ts"

/**
 * The messages between an engine's main thread and its HTTP worker threads (engine/workers/):
 * the main thread owns the database, the bus and the click writer; each worker owns a
 * uWebSockets.js app on the shared port, its cache and its slug filters. Each end decodes what
 * it receives against these.
 */

/** What a worker's cache counted; the main thread sums them for the status page and /metrics. */
export const WorkerStats = Schema.Struct({
  links: Schema.Int,
  domains: Schema.Int,
  bytes: Schema.Number,
  filters: Schema.Int,
  hits: Schema.Number,
  queries: Schema.Number,
  filtered: Schema.Number,
  databaseFailures: Schema.Number,
  staleAnswers: Schema.Number,
  /** Misses answered by blocking the worker for the query (engine/cache/linkCache.ts, loadLinkNow). */
  blockingLoads: Schema.Number,
  /** Answers by HTTP status: [status, count] for each status answered at least once. */
  answers: Schema.Array(Schema.Tuple([Schema.Int, Schema.Number])),
  /** Answer latency: counts per bucket of the engine's fixed boundaries (engine/ops/answerCounts.ts), and their sum in ms. */
  latency: Schema.Struct({ counts: Schema.Array(Schema.Number), sum: Schema.Number })
})
export type WorkerStats = typeof WorkerStats.Type

const HostSlug = Schema.Struct({ host: Schema.String, slug: Schema.String })

/** A worker's cache asking the main thread's database; `id` pairs it with its answer. */
export const SourceCall = Schema.Union([
  Schema.Struct({ type: Schema.Literal("link"), id: Schema.Int, host: Schema.String, slug: Schema.String }),
  Schema.Struct({ type: Schema.Literal("links"), id: Schema.Int, keys: Schema.Array(HostSlug) }),
  Schema.Struct({ type: Schema.Literal("domain"), id: Schema.Int, host: Schema.String }),
  Schema.Struct({ type: Schema.Literal("slugs"), id: Schema.Int, host: Schema.String }),
  /** The database failed and the worker has no answer of its own: what the engine last knew, without a query. */
  Schema.Struct({ type: Schema.Literal("lastKnownLink"), id: Schema.Int, host: Schema.String, slug: Schema.String }),
  Schema.Struct({ type: Schema.Literal("lastKnownDomain"), id: Schema.Int, host: Schema.String })
])
export type SourceCall = typeof SourceCall.Type

/** From the main thread to a worker. */
export const ToHttpWorker = Schema.Union([
  Schema.Struct({ type: Schema.Literal("change"), event: ChangeEvent }),
  Schema.Struct({ type: Schema.Literal("reset") }),
  /** Another worker lists this domain's slugs for its filter: build one too. */
  Schema.Struct({ type: Schema.Literal("warmFilter"), host: Schema.String }),
  /**
   * What another worker's miss loaded (and what it found not to exist), so every worker's cache
   * warms alike and serves the same last known answers through a database outage.
   */
  Schema.Struct({
    type: Schema.Literal("loaded"),
    links: Schema.Array(LinkRecord),
    missingLinks: Schema.Array(HostSlug),
    domains: Schema.Array(DomainRecord),
    missingDomains: Schema.Array(Schema.String)
  }),
  Schema.Struct({ type: Schema.Literal("busState"), connected: Schema.Boolean, since: Schema.Number }),
  Schema.Struct({ type: Schema.Literal("link"), id: Schema.Int, record: Schema.NullOr(LinkRecord) }),
  Schema.Struct({ type: Schema.Literal("links"), id: Schema.Int, records: Schema.Array(LinkRecord) }),
  Schema.Struct({ type: Schema.Literal("domain"), id: Schema.Int, record: Schema.NullOr(DomainRecord) }),
  /** One chunk of a domain's slugs; `done` on the last. */
  Schema.Struct({ type: Schema.Literal("slugs"), id: Schema.Int, slugs: Schema.Array(Schema.String), done: Schema.Boolean }),
  Schema.Struct({ type: Schema.Literal("sourceFailed"), id: Schema.Int, error: Schema.String }),
  /** What the engine last knew: `record` null when known not to exist, absent when nothing is known. */
  Schema.Struct({ type: Schema.Literal("lastKnownLink"), id: Schema.Int, record: Schema.optional(Schema.NullOr(LinkRecord)) }),
  Schema.Struct({ type: Schema.Literal("lastKnownDomain"), id: Schema.Int, record: Schema.optional(Schema.NullOr(DomainRecord)) }),
  /** The main thread gathering every worker's counters. */
  Schema.Struct({ type: Schema.Literal("stats"), id: Schema.Int }),
  /** Whether a password guesser (link and address) is refused for now. */
  Schema.Struct({ type: Schema.Literal("attemptBlocked"), id: Schema.Int, blocked: Schema.Boolean }),
  /** A wrong guess is counted: the worker answers its 403 only now, so the next guess, on any worker, sees it. */
  Schema.Struct({ type: Schema.Literal("attemptCounted"), id: Schema.Int }),
  /** The engine's status page, for the worker that asked for it. */
  Schema.Struct({ type: Schema.Literal("status"), id: Schema.Int, json: Schema.String }),
  Schema.Struct({ type: Schema.Literal("stop") })
])
export type ToHttpWorker = typeof ToHttpWorker.Type

/** The main thread's answers to a worker's SourceCall. */
export type SourceAnswer = Extract<ToHttpWorker, { type: "link" | "links" | "domain" | "slugs" | "sourceFailed" | "lastKnownLink" | "lastKnownDomain" }>

/** From a worker to the main thread. */
export const FromHttpWorker = Schema.Union([
  Schema.Struct({ type: Schema.Literal("listening"), port: Schema.Int }),
  Schema.Struct({ type: Schema.Literal("failed"), error: Schema.String }),
  Schema.Struct({ type: Schema.Literal("clicks"), clicks: RawClickColumns }),
  Schema.Struct({ type: Schema.Literal("source"), call: SourceCall }),
  Schema.Struct({ type: Schema.Literal("stats"), id: Schema.Int, stats: WorkerStats }),
  Schema.Struct({ type: Schema.Literal("status"), id: Schema.Int }),
  /** The password form's guess count, kept on the main thread: may this guesser try, and a wrong guess. */
  Schema.Struct({ type: Schema.Literal("attemptBlocked"), id: Schema.Int, key: Schema.String }),
  Schema.Struct({ type: Schema.Literal("attemptFailed"), id: Schema.Int, key: Schema.String }),
  /** Stopped listening, answered what was in flight and sent its last clicks. */
  Schema.Struct({ type: Schema.Literal("stopped") })
])
export type FromHttpWorker = typeof FromHttpWorker.Type
