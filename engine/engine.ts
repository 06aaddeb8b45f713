import { existsSync } from "node:fs"
import type { Sql } from "postgres"
import type { Bus } from "../shared/bus/bus.ts"
import type { RicochetConfig } from "../shared/config.ts"
import { listSlugs, loadDomainRecord, loadEngineSecret, loadLinkRecord, loadLinkRecords } from "../shared/links/linkQueries.ts"
import { LinkCache } from "./cache/linkCache.ts"
import type { SpoolOptions } from "./clicks/spoolSink.ts"
import { ClickChannel } from "./clicks/clickChannel.ts"
import { bundledCountryDatabase, makeGeoLookup } from "./geo/geo.ts"
import { startEngineServer } from "./http/server.ts"
import { startAdminServer } from "./ops/adminServer.ts"
import { AnswerCounts } from "./ops/answerCounts.ts"
import { engineMetrics, recordBusLag } from "./ops/engineMetrics.ts"

export interface EngineDeps {
  readonly config: RicochetConfig
  /** Read access to the links and domains (a replica will do). */
  readonly sql: Sql
  readonly bus: Bus
  /** Where the click writer thread keeps its spool and writes Parquet. */
  readonly spool: Omit<SpoolOptions, "duck">
}

/**
 * The redirect engine: its cache (filled from the database on misses, kept fresh by the bus),
 * the click writer thread, and the uWebSockets.js server.
 */
export const startEngine = async ({ config, sql, bus, spool }: EngineDeps) => {
  const secret = await loadEngineSecret(sql)
  const cache = new LinkCache(
    {
      link: (host, slug) => loadLinkRecord(sql, host, slug),
      links: (keys) => loadLinkRecords(sql, keys),
      domain: (host) => loadDomainRecord(sql, host),
      slugs: (host) => listSlugs(sql, host)
    },
    { maxLinks: config.cacheMaxLinks, maxBytes: config.cacheMaxMegabytes * 1024 * 1024, ttlMs: config.cacheTtlSeconds * 1000 }
  )
  const unsubscribeEvents = bus.subscribe((event, changedAt) => {
    cache.apply(event)
    if (changedAt !== undefined) recordBusLag(changedAt)
  }, () => cache.reset())
  let busReconnects = 0
  let wasConnected = bus.isConnected()
  const unsubscribeState = bus.onState((state) => {
    if (state.connected && !wasConnected) busReconnects++
    wasConnected = state.connected
    cache.setBusState(state)
  })
  const unsubscribe = () => {
    unsubscribeEvents()
    unsubscribeState()
  }
  const countryDb = config.geoipCountryDb ?? bundledCountryDatabase()
  if (!existsSync(countryDb)) throw new Error(`RICOCHET_GEOIP_COUNTRY_DB: no file at ${countryDb}`)
  const geo = makeGeoLookup({ header: config.geoHeader, countryDatabase: countryDb, cityDatabase: config.geoipCityDb })
  const clicks = await ClickChannel.start({
    spool,
    secret,
    geoHeader: config.geoHeader,
    countryDatabase: countryDb,
    cityDatabase: config.geoipCityDb
  })
  const answers = new AnswerCounts()
  let server: Awaited<ReturnType<typeof startEngineServer>>
  let admin: Awaited<ReturnType<typeof startAdminServer>>
  try {
    server = await startEngineServer({
      host: config.listenHost,
      port: config.enginePort,
      cache,
      clicks,
      geo,
      secret,
      trustProxy: config.trustProxy,
      linkScheme: config.linkScheme,
      answers,
      status: () => ({
        status: "ok",
        bus: cache.busConnected ? "connected" : "disconnected",
        cache: cache.size,
        queries: cache.queries,
        filtered: cache.filtered,
        databaseFailures: cache.sourceFailures,
        staleAnswers: cache.staleAnswers,
        clicks: clicks.counts.clicks,
        sink: clicks.counts.sink,
        clicksDropped: clicks.dropped
      })
    })
    admin = await startAdminServer({
      host: config.engineAdminHost,
      port: config.engineAdminPort,
      sql,
      busConnected: () => cache.busConnected,
      metrics: engineMetrics(answers, () => {
        const counts = clicks.counts
        return {
          busConnected: cache.busConnected,
          busReconnects,
          cacheEntries: cache.size.links + cache.size.domains,
          cacheBytes: cache.size.bytes,
          cacheHits: cache.hits,
          cacheQueries: cache.queries,
          slugFilterRefusals: cache.filtered,
          databaseFailures: cache.sourceFailures,
          staleAnswers: cache.staleAnswers,
          clicksAcknowledged: counts.sink.acknowledged,
          clicksRolled: counts.sink.rolled,
          clicksPending: counts.sink.pending,
          clicksDropped: clicks.dropped
        }
      })
    }).catch(async (error) => {
      await server.stop()
      throw error
    })
  } catch (error) {
    // The writer thread would keep the process alive.
    await clicks.close()
    unsubscribe()
    throw error
  }
  return {
    port: server.port,
    adminPort: admin.port,
    cache,
    /** SIGTERM: stop accepting, finish in-flight requests, flush the clicks. */
    stop: async () => {
      await Promise.all([server.stop(), admin.stop()])
      unsubscribe()
      await clicks.close()
    }
  }
}
