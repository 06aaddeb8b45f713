import { existsSync } from "node:fs"
import type { Sql } from "postgres"
import type { Bus, BusState } from "../shared/bus/bus.ts"
import type { ChangeEvent } from "../shared/bus/events.ts"
import type { RicochetConfig } from "../shared/config.ts"
import type { WorkerStats } from "../shared/engine/httpWorkerMessages.ts"
import { listSlugs, loadDomainRecord, loadEngineSecret, loadLinkRecord, loadLinkRecords } from "../shared/links/linkQueries.ts"
import { type CacheOptions, LinkCache } from "./cache/linkCache.ts"
import type { SpoolOptions } from "./clicks/spoolSink.ts"
import { ClickChannel } from "./clicks/clickChannel.ts"
import { bundledCountryDatabase, makeGeoLookup } from "./geo/geo.ts"
import { startEngineServer } from "./http/server.ts"
import { startAdminServer } from "./ops/adminServer.ts"
import { AnswerCounts } from "./ops/answerCounts.ts"
import { engineMetrics, recordBusLag } from "./ops/engineMetrics.ts"
import { snapshotOf, statsOf, statusOf, sumStats } from "./ops/engineStatus.ts"
import { HttpWorkers } from "./workers/httpWorkers.ts"

export interface EngineDeps {
  readonly config: RicochetConfig
  /** Read access to the links and domains (a replica will do). */
  readonly sql: Sql
  readonly bus: Bus
  /** Where the click writer thread keeps its spool and writes Parquet. */
  readonly spool: Omit<SpoolOptions, "duck">
}

/** What the bus tells the caches, in order. */
type BusNews = { readonly type: "change"; readonly event: ChangeEvent } | { readonly type: "reset" } | { readonly type: "busState"; readonly state: BusState }

/** What serves the visitors: one server on this thread, or HTTP worker threads. */
interface Serving {
  readonly port: number
  readonly workers: number
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
export const startEngine = async ({ config, sql, bus, spool }: EngineDeps) => {
  const secret = await loadEngineSecret(sql)
  const source = {
    link: (host: string, slug: string) => loadLinkRecord(sql, host, slug),
    links: (keys: ReadonlyArray<{ readonly host: string; readonly slug: string }>) => loadLinkRecords(sql, keys),
    domain: (host: string) => loadDomainRecord(sql, host),
    slugs: (host: string) => listSlugs(sql, host)
  }
  const workers = config.engineWorkers
  // The configured bounds are the engine's: each worker's cache gets its share.
  const cacheOptions: CacheOptions = {
    maxLinks: Math.max(1, Math.floor(config.cacheMaxLinks / workers)),
    maxBytes: Math.max(1, Math.floor((config.cacheMaxMegabytes * 1024 * 1024) / workers)),
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
  const unsubscribeEvents = bus.subscribe((event, changedAt) => {
    deliver({ type: "change", event })
    if (changedAt !== undefined) recordBusLag(changedAt)
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

  const clicks = await ClickChannel.start({ spool, secret, geoHeader: config.geoHeader, countryDatabase: countryDb, cityDatabase: config.geoipCityDb })
  // A worker may be asked before the others listen: it reports what there is.
  const statusJson = async () =>
  {
    const { total, each } = serving === undefined ? { total: sumStats([]), each: [] } : await serving.stats()
    return JSON.stringify(statusOf(total, busState.connected, clicks, each))
  }
  const render = engineMetrics()
  let admin: Awaited<ReturnType<typeof startAdminServer>>
  try {
    const server = { host: config.listenHost, port: config.enginePort, secret, trustProxy: config.trustProxy, linkScheme: config.linkScheme }
    if (workers === 1) {
      const cache = new LinkCache(source, cacheOptions)
      cache.setBusState(busState)
      const answers = new AnswerCounts()
      const running = await startEngineServer({
        ...server,
        cache,
        clicks,
        geo: makeGeoLookup(geoOptions),
        answers,
        status: () => {
          const stats = statsOf(cache, answers)
          return JSON.stringify(statusOf(stats, busState.connected, clicks, [stats]))
        }
      })
      serving = {
        port: running.port,
        workers,
        stats: async () => {
          const stats = statsOf(cache, answers)
          return { total: stats, each: [stats] }
        },
        apply: (message) =>
          message.type === "change" ? cache.apply(message.event) : message.type === "reset" ? cache.reset() : cache.setBusState(message.state),
        stop: running.stop
      }
    } else {
      const pool = await HttpWorkers.start({
        count: workers,
        worker: { ...server, geo: geoOptions, cache: cacheOptions },
        busState: () => (busState.connected ? { connected: true, since: 0 } : busState),
        source,
        clicks,
        status: statusJson
      })
      serving = {
        port: pool.listeningPort,
        workers,
        stats: async () => {
          const each = await pool.stats()
          // The database calls the main thread made: workers' identical misses joined into one.
          return { total: { ...sumStats(each), queries: pool.queries }, each }
        },
        apply: (message) =>
          pool.broadcast(message.type === "busState"
            ? { type: "busState", connected: message.state.connected, since: message.state.connected ? 0 : message.state.since }
            : message),
        stop: () => pool.stop()
      }
    }
    for (const message of early.splice(0)) serving.apply(message)
    const running = serving
    admin = await startAdminServer({
      host: config.engineAdminHost,
      port: config.engineAdminPort,
      sql,
      busConnected: () => busState.connected,
      metrics: async () => render(snapshotOf((await running.stats()).total, busState.connected, busReconnects, clicks))
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
    workers,
    /** SIGTERM: stop accepting, finish in-flight requests, flush the clicks. */
    stop: async () => {
      await Promise.all([running.stop(), admin.stop()])
      unsubscribe()
      await clicks.close()
    }
  }
}
