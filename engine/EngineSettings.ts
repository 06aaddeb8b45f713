import { Config } from "effect"
import { availableParallelism } from "node:os"
import * as path from "node:path"
import { dataDir } from "../shared/settings/StorageSettings.ts"
import { directory, headerName, identifier, positiveInteger, positiveNumber, text, threadCount } from "../shared/settings/readers.ts"

/**
 * What only the engine reads. No service: the engine takes the whole configuration as data
 * (config.ts's Configuration), as its worker threads are given plain values.
 */
export interface EngineSettings {
  /** Trusted header carrying the visitor's country (e.g. cf-ipcountry). */
  readonly geoHeader: string | undefined
  /** MMDB country database (default: the bundled CC0 one); city database if any. */
  readonly geoipCountryDb: string | undefined
  readonly geoipCityDb: string | undefined
  /** uWebSockets.js apps in worker threads on the one port (0: served on the main thread). */
  readonly engineWorkers: number
  /** Cache bounds, shared out among the workers (the TTL is BusSettings'). */
  readonly cacheMaxLinks: number
  readonly cacheMaxMegabytes: number
  /** The spool, the engine's id, fsync cadence. */
  readonly spoolDir: string
  readonly engineId: string | undefined
  readonly spoolFsyncMs: number
  /** What the engine keeps in memory while its spool's disk refuses writes; beyond it clicks are dropped (counted). */
  readonly spoolBufferClicks: number
  readonly spoolBufferMegabytes: number
  /** Bucket transport: bytes of sealed files an engine keeps waiting for the bucket; beyond it new clicks are refused (counted dropped). */
  readonly clicksOutboxBytes: number
}

export const engineSettings: Config.Config<EngineSettings> = Config.all({
  geoHeader: headerName("RICOCHET_GEO_HEADER"),
  geoipCountryDb: text("RICOCHET_GEOIP_COUNTRY_DB"),
  geoipCityDb: text("RICOCHET_GEOIP_CITY_DB"),
  // `auto` (the default): one per core.
  engineWorkers: threadCount("RICOCHET_ENGINE_WORKERS", availableParallelism()),
  cacheMaxLinks: Config.map(positiveNumber("RICOCHET_CACHE_MAX_LINKS", 2_000_000), Math.floor),
  cacheMaxMegabytes: positiveNumber("RICOCHET_CACHE_MAX_MB", 1024),
  spoolDir: directory("RICOCHET_SPOOL_DIR", Config.map(dataDir, (dir) => path.join(dir, "spool"))),
  engineId: identifier("RICOCHET_ENGINE_ID"),
  spoolFsyncMs: positiveNumber("RICOCHET_SPOOL_FSYNC_MS", 100),
  spoolBufferClicks: positiveInteger("RICOCHET_SPOOL_BUFFER_CLICKS", 200_000),
  spoolBufferMegabytes: positiveNumber("RICOCHET_SPOOL_BUFFER_MB", 128),
  clicksOutboxBytes: Config.map(positiveNumber("RICOCHET_CLICKS_OUTBOX_MB", 1024), (megabytes) => Math.floor(megabytes * 1024 * 1024))
})
