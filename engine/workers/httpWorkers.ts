import { Worker } from "node:worker_threads"
import { workerEntry } from "../../shared/build/modulePaths.ts"
import { FromHttpWorker, type SourceCall, type ToHttpWorker, type WorkerStats } from "../../shared/engine/httpWorkerMessages.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { receiver } from "../../shared/messages/receiver.ts"
import type { LinkSource } from "../cache/linkSource.ts"
import type { ClickChannel } from "../clicks/clickChannel.ts"
import { STOP_DEADLINE_MS } from "../http/stopping.ts"
import { AttemptLimiter } from "../password/unlock.ts"
import type { HttpWorkerOptions } from "./httpWorkerOptions.ts"
import { type LastKnownBounds, LastKnownAnswers } from "./lastKnownAnswers.ts"

const RESTART_MS = 1_000
/** A worker's server answers for up to STOP_DEADLINE_MS, then its last clicks come: one that takes longer is ended. */
const STOP_TIMEOUT_MS = STOP_DEADLINE_MS + 5_000
const STATS_TIMEOUT_MS = 1_000
const WARM_INTERVAL_MS = 60_000
/** Domains remembered for WARM_INTERVAL_MS: bounded, as the hosts asked for come from visitors. */
const MAX_WARMED = 10_000

export interface HttpWorkersOptions {
  readonly count: number
  /** What every worker starts with; `port` 0 lets the first pick one and the others share it. */
  readonly worker: Omit<HttpWorkerOptions, "busState" | "answered">
  readonly busState: () => HttpWorkerOptions["busState"]
  /** The main thread's database, answering the workers' caches. */
  readonly source: LinkSource & Required<Pick<LinkSource, "links" | "slugs">>
  /** What the engine remembers of every worker's answers for a database outage: the whole cache bound. */
  readonly lastKnown: LastKnownBounds
  readonly clicks: Pick<ClickChannel, "addColumns">
  /** The status page's JSON, asked for by whichever worker a visitor reached. */
  readonly status: () => Promise<string>
}

/** A database load under way, with the change count it started at. */
interface Loading<T> {
  readonly since: number
  readonly record: Promise<T>
}

/** What the workers send, decoded before it is trusted. */
const receiveFromWorker = receiver("engine HTTP worker (to the main thread)", FromHttpWorker)

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * The engine's HTTP worker threads (docs/architecture.md, "Who owns what"): `count` uWebSockets.js
 * apps listening on one port, the kernel handing each new connection to one of them. This
 * thread keeps what there is one of per engine (the database pool, the bus subscription, the
 * click writer) and serves the workers: their caches' queries, every change event, their clicks.
 * It keeps the last answer any worker got for each key, for a worker that has none when the
 * database fails. A worker that dies is started again; its cache starts empty.
 */
export class HttpWorkers {
  private readonly workers: Array<Worker | undefined> = []
  private stopping = false
  private nextStatsId = 0
  private readonly statsWaiters = new Map<number, (stats: WorkerStats) => void>()
  private readonly stoppedWaiters = new Map<Worker, () => void>()
  /** Each worker's "answered" counter (HttpWorkerOptions.answered), for the worker that blocks on its miss. */
  private readonly answeredSignals = new Map<Worker, Int32Array>()
  private port = 0
  /** The password form's guess count, one for every worker. */
  private readonly attempts = new AttemptLimiter()
  /** Domains whose filter every worker was told to build, and when (reset on a bus reset, which drops every filter). */
  private readonly warmed = new Map<string, number>()
  /** Database calls made for the workers' caches, identical ones joined: the engine's `queries`. */
  queries = 0
  /** Loads under way by key, with the change count they started at: a worker may join one only if no change came since. */
  private readonly loadingLinks = new Map<string, Loading<LinkRecord | null>>()
  private readonly loadingDomains = new Map<string, Loading<DomainRecord | null>>()
  /** Counts the change events and resets sent: a load that spans one may predate it, so it is not shared. */
  private changes = 0
  /** Every worker's answers, for the worker whose load fails with none of its own. */
  private readonly lastKnown: LastKnownAnswers

  private constructor(private readonly options: HttpWorkersOptions) {
    this.lastKnown = new LastKnownAnswers(options.lastKnown)
  }

  /** Starts every worker; resolves once all listen (the first picks the port when it is 0). */
  static async start(options: HttpWorkersOptions): Promise<HttpWorkers> {
    const pool = new HttpWorkers(options)
    try {
      pool.port = await pool.spawn(0, options.worker.port)
      await Promise.all(Array.from({ length: options.count - 1 }, (_, i) => pool.spawn(i + 1, pool.port)))
    } catch (error) {
      await pool.stop()
      throw error
    }
    return pool
  }

  get listeningPort(): number {
    return this.port
  }

  get count(): number {
    return this.options.count
  }

  /** To every worker, in the order sent (a change event, a reset, the bus's state). */
  broadcast(message: ToHttpWorker): void {
    if (message.type === "change" || message.type === "reset") this.changes++
    if (message.type === "change") this.lastKnown.apply(message.event)
    if (message.type === "reset") this.warmed.clear()
    for (const worker of this.workers) worker?.postMessage(message)
  }

  /** What one worker's miss loaded, to the others (unless a change came while it was loading). */
  private share(from: Worker, since: number, loaded: Omit<Extract<ToHttpWorker, { type: "loaded" }>, "type">): void {
    if (this.changes !== since) return
    const message: ToHttpWorker = { type: "loaded", ...loaded }
    for (const worker of this.workers) if (worker !== undefined && worker !== from) worker.postMessage(message)
  }

  /** Every running worker's counters; one that does not answer within a second is left out. */
  async stats(): Promise<Array<WorkerStats>> {
    const running = this.workers.filter((worker) => worker !== undefined)
    const answers = await Promise.all(running.map((worker) => {
      const id = this.nextStatsId++
      return new Promise<WorkerStats | undefined>((resolve) => {
        const timer = setTimeout(() => {
          this.statsWaiters.delete(id)
          resolve(undefined)
        }, STATS_TIMEOUT_MS)
        this.statsWaiters.set(id, (stats) => {
          clearTimeout(timer)
          this.statsWaiters.delete(id)
          resolve(stats)
        })
        worker.postMessage({ type: "stats", id } satisfies ToHttpWorker)
      })
    }))
    return answers.filter((stats) => stats !== undefined)
  }

  /** Each worker stops listening, answers what is in flight and sends its last clicks; then it ends. */
  async stop(): Promise<void> {
    this.stopping = true
    await Promise.all(this.workers.map(async (worker) => {
      if (worker === undefined) return
      const stopped = new Promise<void>((resolve) => {
        this.stoppedWaiters.set(worker, resolve)
        worker.once("exit", () => resolve())
        setTimeout(resolve, STOP_TIMEOUT_MS).unref()
      })
      worker.postMessage({ type: "stop" } satisfies ToHttpWorker)
      await stopped
      await worker.terminate()
    }))
  }

  private spawn(index: number, port: number): Promise<number> {
    const answered = new SharedArrayBuffer(4)
    const workerData: HttpWorkerOptions = { ...this.options.worker, port, answered, busState: this.options.busState() }
    const worker = new Worker(workerEntry(import.meta.url, "httpWorker"), { workerData })
    this.workers[index] = worker
    this.answeredSignals.set(worker, new Int32Array(answered))
    let listened = false
    return new Promise<number>((resolve, reject) => {
      worker.on("message", (raw: unknown) => {
        const message = receiveFromWorker(raw)
        if (message === undefined) return
        if (message.type === "listening") {
          listened = true
          return resolve(message.port)
        }
        if (message.type === "failed") return reject(new Error(message.error))
        this.receive(worker, message)
      })
      worker.on("error", (error) => console.error(`engine HTTP worker ${index} failed`, error))
      worker.on("exit", (code) => {
        reject(new Error(`engine HTTP worker ${index} exited (${code}) before it listened`))
        this.answeredSignals.delete(worker)
        if (this.workers[index] !== worker) return
        this.workers[index] = undefined
        // One that never listened would fail the same way again: the start reports it instead.
        if (this.stopping || !listened) return
        console.error(`engine HTTP worker ${index} exited (${code}); starting it again in ${RESTART_MS} ms`)
        setTimeout(() => {
          if (!this.stopping) this.spawn(index, this.port).catch((error) => console.error(`engine HTTP worker ${index} did not start again`, error))
        }, RESTART_MS).unref()
      })
    })
  }

  private receive(worker: Worker, message: FromHttpWorker): void {
    switch (message.type) {
      case "clicks":
        return this.options.clicks.addColumns(message.clicks)
      case "source":
        return this.answerSource(worker, message.call)
      case "stats":
        return this.statsWaiters.get(message.id)?.(message.stats)
      case "status":
        void this.options.status().then((json) => worker.postMessage({ type: "status", id: message.id, json } satisfies ToHttpWorker))
        return
      case "attemptBlocked":
        return worker.postMessage({ type: "attemptBlocked", id: message.id, blocked: this.attempts.blocked(message.key, Date.now()) } satisfies ToHttpWorker)
      case "attemptFailed":
        this.attempts.fail(message.key, Date.now())
        return worker.postMessage({ type: "attemptCounted", id: message.id } satisfies ToHttpWorker)
      case "stopped":
        return this.stoppedWaiters.get(worker)?.()
      case "listening":
      case "failed":
        return
    }
  }

  /**
   * One worker builds a domain's slug filter: the others build theirs now, rather than when a
   * visitor of that domain first reaches them (maybe during a database outage, when no filter can
   * be built and every unknown slug would be a 503 instead of a 404). Their own listings follow
   * within milliseconds and must not start another round: once a minute per domain at most.
   */
  private warmFilters(from: Worker, host: string): void {
    const now = Date.now()
    if (now - (this.warmed.get(host) ?? -Infinity) < WARM_INTERVAL_MS) return
    this.warmed.set(host, now)
    if (this.warmed.size > MAX_WARMED) this.warmed.delete(this.warmed.keys().next().value!)
    for (const worker of this.workers) if (worker !== undefined && worker !== from) worker.postMessage({ type: "warmFilter", host } satisfies ToHttpWorker)
  }

  /**
   * Links by key, as one query for those no other worker is loading already: several workers
   * missing the same slug at once (a new link shared on social media) cost one query, as the
   * misses of one worker do.
   */
  private loadLinks(keys: ReadonlyArray<{ readonly host: string; readonly slug: string }>): Promise<Map<string, LinkRecord>> {
    const answers: Array<Promise<readonly [string, LinkRecord | null]>> = []
    const fresh: Array<{ readonly host: string; readonly slug: string }> = []
    for (const key of keys) {
      const id = `${key.host}\n${key.slug}`
      const loading = this.joinable(this.loadingLinks, id)
      if (loading !== undefined) answers.push(loading.then((record) => [id, record] as const))
      else fresh.push(key)
    }
    if (fresh.length > 0) {
      this.queries++
      const query = this.options.source.links(fresh)
      this.lastKnown.watchLinks(fresh, query)
      for (const key of fresh) {
        const id = `${key.host}\n${key.slug}`
        const record = this.track(this.loadingLinks, id, query.then((found) => found.get(id) ?? null))
        answers.push(record.then((found) => [id, found] as const))
      }
    }
    return Promise.all(answers).then((pairs) => {
      const found = new Map<string, LinkRecord>()
      for (const [id, record] of pairs) if (record !== null) found.set(id, record)
      return found
    })
  }

  private loadDomain(host: string): Promise<DomainRecord | null> {
    const loading = this.joinable(this.loadingDomains, host)
    if (loading !== undefined) return loading
    this.queries++
    const query = this.options.source.domain(host)
    this.lastKnown.watchDomain(host, query)
    return this.track(this.loadingDomains, host, query)
  }

  /** The load of `key` under way, if it started after the latest change event (else its answer may predate it). */
  private joinable<T>(loading: Map<string, Loading<T>>, key: string): Promise<T> | undefined {
    const entry = loading.get(key)
    return entry !== undefined && entry.since === this.changes ? entry.record : undefined
  }

  /** Registers a load for others to join until it settles. */
  private track<T>(loading: Map<string, Loading<T>>, key: string, record: Promise<T>): Promise<T> {
    const entry = { since: this.changes, record }
    loading.set(key, entry)
    const done = () => {
      if (loading.get(key) === entry) loading.delete(key)
    }
    record.then(done, done)
    return record
  }

  private answerSource(worker: Worker, call: SourceCall): void {
    const { source } = this.options
    const signal = this.answeredSignals.get(worker)
    const reply = (message: ToHttpWorker) => {
      worker.postMessage(message)
      // The worker may be blocked waiting for this answer (engine/cache/blockingMiss.ts): wake it.
      if (signal !== undefined) {
        Atomics.add(signal, 0, 1)
        Atomics.notify(signal, 0)
      }
    }
    const fail = (error: unknown) => reply({ type: "sourceFailed", id: call.id, error: messageOf(error) })
    const since = this.changes
    switch (call.type) {
      case "link":
        return void this.loadLinks([call]).then((found) => found.get(`${call.host}\n${call.slug}`) ?? null).then((record) => {
          reply({ type: "link", id: call.id, record })
          const missing = record === null ? [{ host: call.host, slug: call.slug }] : []
          this.share(worker, since, { links: record === null ? [] : [record], missingLinks: missing, domains: [], missingDomains: [] })
        }, fail)
      case "links":
        return void this.loadLinks(call.keys).then((found) => {
          const records = [...found.values()]
          reply({ type: "links", id: call.id, records })
          const missing = call.keys.filter(({ host, slug }) => !found.has(`${host}\n${slug}`))
          this.share(worker, since, { links: records, missingLinks: missing, domains: [], missingDomains: [] })
        }, fail)
      case "domain":
        return void this.loadDomain(call.host).then((record) => {
          reply({ type: "domain", id: call.id, record })
          this.share(worker, since, { links: [], missingLinks: [], domains: record === null ? [] : [record], missingDomains: record === null ? [call.host] : [] })
        }, fail)
      case "lastKnownLink":
        return reply({ type: "lastKnownLink", id: call.id, record: this.lastKnown.link(call.host, call.slug) })
      case "lastKnownDomain":
        return reply({ type: "lastKnownDomain", id: call.id, record: this.lastKnown.domain(call.host) })
      case "slugs":
        this.warmFilters(worker, call.host)
        return void (async () => {
          for await (const slugs of source.slugs(call.host)) reply({ type: "slugs", id: call.id, slugs, done: false })
          reply({ type: "slugs", id: call.id, slugs: [], done: true })
        })().catch(fail)
    }
  }
}
