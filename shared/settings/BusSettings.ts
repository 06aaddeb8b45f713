import { Config, Context } from "effect"
import { positiveNumber, url } from "./readers.ts"
import { settingsLayer } from "./settingsLayer.ts"

/** The change bus: NATS, or the in-process bus when unset; and how stale a cache may grow without it. */
export class BusSettings extends Context.Service<BusSettings, {
  readonly natsUrl: string | undefined
  /**
   * The engine caches' TTL, which bounds staleness when the bus is down: the bus's connection is
   * checked often enough that an outage is noticed well within it.
   */
  readonly cacheTtlSeconds: number
}>()("ricochet/BusSettings") {}

export const natsUrl = url("NATS_URL", ["nats", "tls", "ws", "wss"])

export const busSettings: Config.Config<BusSettings["Service"]> = Config.all({
  natsUrl,
  cacheTtlSeconds: positiveNumber("RICOCHET_CACHE_TTL_SECONDS", 60)
})

export const BusSettingsLayer = settingsLayer(BusSettings, busSettings)
