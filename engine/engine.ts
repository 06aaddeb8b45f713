import { existsSync } from "node:fs"
import type { Sql } from "postgres"
import type { Bus, BusState } from "../shared/bus/bus.ts"
import type { ChangeEvent } from "../shared/bus/events.ts"
import type { WorkerStats } from "../shared/engine/httpWorkerMessages.ts"
import { listSlugs, loadDomainRecord, loadEngineSecret, loadLinkRecord, loadLinkRecords } from "../shared/links/linkQueries.ts"
import { type CacheOptions, LinkCache } from "./cache/linkCache.ts"
import type { SpoolOptions } from "./clicks/spoolSink.ts"
import { ClickChannel } from "./clicks/clickChannel.ts"
import type { EngineConfig } from "./EngineConfiguration.ts"
import { bundledCountryDatabase, makeGeoLookup } from "./geo/geo.ts"
import { type EngineServerOptions, startEngineServer } from "./http/server.ts"
import { startAdminServer } from "./ops/adminServer.ts"
import { AnswerCounts } from "./ops/answerCounts.ts"
import { engineMetrics } from "./ops/engineMetrics.ts"
import { processMetrics } from "../shared/ops/processMetrics.ts"
import { snapshotOf, statsOf, statusOf, sumStats } from "./ops/engineStatus.ts"
import { HttpWorkers, type HttpWorkersOptions } from "./workers/httpWorkers.ts"

export interface EngineDeps {
  /** Data, not services: parts of it go to the worker threads. */
  readonly config: EngineConfig
  /** Read access to the links and domains (a replica will do). */
  readonly sql: Sql
  readonly bus: Bus
  /** Where the click writer thread keeps its spool and writes Parquet. */
  readonly spool: Omit<SpoolOptions, "duck" | "refuse" | "onRolled">
  /** The process's own series on this engine's /metrics: when no control runs in the process. */
  readonly processMetrics?: boolean
}

/** What the bus tells the caches, in order. */
type BusNews = { readonly type: "change"; readonly event: ChangeEvent } | { readonly type: "reset" } | { readonly type: "busState"; readonly state: BusState }

/** What serves the visitors: one server on this thread, or HTTP worker threads. */
interface Serving {
  readonly port: number
  /** The engine's counters, and each server's (one per HTTP worker). */
  readonly stats: () => Promise<{ readonly total: WorkerStats; readonly each: ReadonlyArray<WorkerStats> }>
  readonly apply: (news: BusNews) => void
  readonly stop: () => Promise<void>
}

/**
 * The redirect engine: its cache (filled from the database on misses, kept fresh by the bus),
 * the click writer thread, and the uWebSockets.js server, on this thread or on
 * RICOCHET_ENGINE_WORKERS worker threads sharing the port (each with its own cache).
 */
export const startEngine = async ({ config, sql, bus, spool, processMetrics: withProcess = true }: EngineDeps) => {
  const secret = await loadEngineSecret(sql)
  const source = {
    link: (host: string, slug: string) => loadLinkRecord(sql, host, slug),
    links: (keys: ReadonlyArray<{ readonly host: string; readonly slug: string }>) => loadLinkRecords(sql, keys),
    domain: (host: string) => loadDomainRecord(sql, host),
    slugs: (host: string) => listSlugs(sql, host)
  }
  const workers = config.engineWorkers
  // The configured bounds are the engine's: each worker's cache gets its share.
  const caches = Math.max(1, workers)
  const cacheOptions: CacheOptions = {
    maxLinks: Math.max(1, Math.floor(config.cacheMaxLinks / caches)),
    maxBytes: Math.max(1, Math.floor((config.cacheMaxMegabytes * 1024 * 1024) / caches)),
    ttlMs: config.cacheTtlSeconds * 1000
  }
  const countryDb = config.geoipCountryDb ?? bundledCountryDatabase()
  if (!existsSync(countryDb)) throw new Error(`RICOCHET_GEOIP_COUNTRY_DB: no file at ${countryDb}`)
  const geoOptions = { header: config.geoHeader, countryDatabase: countryDb, cityDatabase: config.geoipCityDb }

  let busState: BusState = bus.isConnected() ? { connected: true } : { connected: false, since: Date.now() }
  let busReconnects = 0
  let serving: Serving | undefined
  // Subscribed before serving starts, so no change is missed in between; applied once it runs.
  const early: Array<BusNews> = []
  const deliver = (news: BusNews) => (serving === undefined ? early.push(news) : serving.apply(news))
  const metrics = engineMetrics()
  const unsubscribeEvents = bus.subscribe((event, changedAt) => {
    deliver({ type: "change", event })
    if (changedAt !== undefined) metrics.recordBusLag(changedAt)
  }, () => deliver({ type: "reset" }))
  const unsubscribeState = bus.onState((state) => {
    if (state.connected && !busState.connected) busReconnects++
    busState = state
    deliver({ type: "busState", state })
  })
  const unsubscribe = () => {
    unsubscribeEvents()
    unsubscribeState()
  }

  const upload = config.clicksTransport === "bucket" && config.natsUrl !== undefined
    ? { natsUrl: config.natsUrl, bucket: config.clicksBucket, replicas: config.clicksReplicas, budgetBytes: config.clicksOutboxBytes }
    : undefined
  const clicks = await ClickChannel.start({ spool, upload, secret, geoHeader: config.geoHeader, countryDatabase: countryDb, cityDatabase: config.geoipCityDb })
  const statusText = (total: WorkerStats, each: ReadonlyArray<WorkerStats>) => JSON.stringify(statusOf(total, busState.connected, clicks, each))
  const processWide = withProcess ? processMetrics() : () => ""
  let admin: Awaited<ReturnType<typeof startAdminServer>>
  try {
    const server = { host: config.listenHost, port: config.enginePort, secret, trustProxy: config.trustProxy, linkScheme: config.linkScheme }
    serving = workers === 0
      ? await serveOnThisThread({ ...server, cache: new LinkCache(source, cacheOptions), clicks, geo: makeGeoLookup(geoOptions), busState, statusText })
      : await serveOnWorkers({
        count: workers,
        worker: { ...server, geo: geoOptions, cache: cacheOptions },
        busState: () => wireBusState(busState),
        source,
        lastKnown: { maxLinks: config.cacheMaxLinks, maxBytes: config.cacheMaxMegabytes * 1024 * 1024 },
        clicks,
        // A worker may be asked before the others listen: it reports what there is.
        status: async () => {
          const { total, each } = serving === undefined ? { total: sumStats([]), each: [] } : await serving.stats()
          return statusText(total, each)
        }
      })
    for (const news of early.splice(0)) serving.apply(news)
    const running = serving
    admin = await startAdminServer({
      host: config.engineAdminHost,
      port: config.engineAdminPort,
      sql,
      busConnected: () => busState.connected,
      knownAnswers: async () => {
        const { total } = await running.stats()
        return total.links + total.domains
      },
      metrics: async () => metrics.render(snapshotOf((await running.stats()).total, busState.connected, busReconnects, clicks)) + processWide()
    }).catch(async (error) => {
      await running.stop()
      throw error
    })
  } catch (error) {
    // The writer thread would keep the process alive.
    await clicks.close()
    unsubscribe()
    throw error
  }
  const running = serving
  return {
    port: running.port,
    adminPort: admin.port,
    /** SIGTERM: stop accepting, finish in-flight requests, flush the clicks. */
    stop: async () => {
      await Promise.all([running.stop(), admin.stop()])
      unsubscribe()
      await clicks.close()
    }
  }
}

/** The bus state as the workers' messages carry it (`since` is meaningless while connected). */
const wireBusState = (state: BusState) => ({ connected: state.connected, since: state.connected ? 0 : state.since })

/**
 * One uWebSockets.js app on this thread (RICOCHET_ENGINE_WORKERS=0): no relay of clicks and misses
 * between threads, but a miss cannot block for its query here (the database's client, and the
 * embedded database itself, run on this thread), so a request pipelined behind a miss in the
 * same read loses its connection (engine/http/pendingAnswers.ts).
 */
const serveOnThisThread = async (options: Omit<EngineServerOptions, "answers" | "status"> & {
  readonly busState: BusState
  readonly statusText: (total: WorkerStats, each: ReadonlyArray<WorkerStats>) => string
}): Promise<Serving> => {
  const { cache, busState, statusText } = options
  cache.setBusState(busState)
  const answers = new AnswerCounts()
  const stats = () => statsOf(cache, answers)
  const running = await startEngineServer({
    ...options,
    answers,
    status: () => {
      const now = stats()
      return statusText(now, [now])
    }
  })
  return {
    port: running.port,
    stats: async () => {
      const now = stats()
      return { total: now, each: [now] }
    },
    apply: (news) => (news.type === "change" ? cache.apply(news.event) : news.type === "reset" ? cache.reset() : cache.setBusState(news.state)),
    stop: running.stop
  }
}

/** HTTP worker threads on the one port, each with its cache (engine/workers/). */
const serveOnWorkers = async (options: HttpWorkersOptions): Promise<Serving> => {
  const pool = await HttpWorkers.start(options)
  return {
    port: pool.listeningPort,
    stats: async () => {
      const each = await pool.stats()
      // The database calls the main thread made: workers' identical misses joined into one.
      return { total: { ...sumStats(each), queries: pool.queries }, each }
    },
    apply: (news) => pool.broadcast(news.type === "busState" ? { type: "busState", ...wireBusState(news.state) } : news),
    stop: () => pool.stop()
  }
}
