import { Config, Context } from "effect"
import { type BusSettings, busSettings } from "../shared/settings/BusSettings.ts"
import { type ClickSettings, clickSettings } from "../shared/settings/ClickSettings.ts"
import { type LinkSettings, linkSettings } from "../shared/settings/LinkSettings.ts"
import { type ListenSettings, listenSettings } from "../shared/settings/ListenSettings.ts"
import { type ProxySettings, proxySettings } from "../shared/settings/ProxySettings.ts"
import { type StorageSettings, storageSettings } from "../shared/settings/StorageSettings.ts"
import { settingsLayer } from "../shared/settings/settingsLayer.ts"
import { type EngineSettings, engineSettings } from "./EngineSettings.ts"

/**
 * Everything the engine reads, as one plain object: the engine hands parts of it to its worker
 * threads and its click writer thread, which receive data, not services, so here the whole
 * object fits (control's services read their own settings instead).
 */
export type EngineConfig =
  & ListenSettings["Service"]
  & StorageSettings["Service"]
  & LinkSettings["Service"]
  & ClickSettings["Service"]
  & BusSettings["Service"]
  & ProxySettings["Service"]
  & EngineSettings

export const engineConfig: Config.Config<EngineConfig> = Config.map(
  Config.all([listenSettings, storageSettings, linkSettings, clickSettings, busSettings, proxySettings, engineSettings]),
  (groups) => Object.assign({}, ...groups) as EngineConfig
)

export class EngineConfiguration extends Context.Service<EngineConfiguration, EngineConfig>()("ricochet/EngineConfiguration") {}

export const EngineConfigurationLayer = settingsLayer(EngineConfiguration, engineConfig)
