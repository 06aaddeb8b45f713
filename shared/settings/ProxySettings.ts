import { Config, Context } from "effect"
import { flag } from "./readers.ts"
import { settingsLayer } from "./settingsLayer.ts"

/** Whether a proxy of the operator's stands in front of both halves. */
export class ProxySettings extends Context.Service<ProxySettings, {
  /** Take the client address from the last X-Forwarded-For entry (only behind a proxy you run). */
  readonly trustProxy: boolean
}>()("ricochet/ProxySettings") {}

export const proxySettings: Config.Config<ProxySettings["Service"]> = Config.all({ trustProxy: flag("RICOCHET_TRUST_PROXY") })

export const ProxySettingsLayer = settingsLayer(ProxySettings, proxySettings)
