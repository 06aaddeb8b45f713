import { Config, Layer } from "effect"
import { BusSettingsLayer } from "../shared/settings/BusSettings.ts"
import { ClickSettingsLayer } from "../shared/settings/ClickSettings.ts"
import { LinkSettingsLayer } from "../shared/settings/LinkSettings.ts"
import { ListenSettingsLayer } from "../shared/settings/ListenSettings.ts"
import { ProxySettingsLayer } from "../shared/settings/ProxySettings.ts"
import { StorageSettingsLayer } from "../shared/settings/StorageSettings.ts"
import { type CompactionSettings, CompactionSettingsLayer, compactionSettings } from "./analytics/CompactionSettings.ts"
import { type DomainSettings, DomainSettingsLayer, domainSettings } from "./domains/DomainSettings.ts"
import { type RequestLogSettings, RequestLogSettingsLayer, requestLogSettings } from "./http/RequestLogSettings.ts"
import { type DnsSettings, DnsSettingsLayer, dnsSettings } from "./kernel/DnsSettings.ts"
import { type QrSettings, QrSettingsLayer, qrSettings } from "./links/qr/QrSettings.ts"
import { type SessionSettings, SessionSettingsLayer, sessionSettings } from "./sessions/SessionSettings.ts"
import { type WebhookSettings, WebhookSettingsLayer, webhookSettings } from "./webhooks/WebhookSettings.ts"

/** What only control reads, as one object: for start-up's validation of every variable (config.ts). */
export type ControlOnlySettings =
  & SessionSettings["Service"]
  & DomainSettings["Service"]
  & DnsSettings["Service"]
  & WebhookSettings["Service"]
  & QrSettings["Service"]
  & CompactionSettings["Service"]
  & RequestLogSettings["Service"]

export const controlOnlySettings: Config.Config<ControlOnlySettings> = Config.map(
  Config.all([sessionSettings, domainSettings, dnsSettings, webhookSettings, qrSettings, compactionSettings, requestLogSettings]),
  (groups) => Object.assign({}, ...groups) as ControlOnlySettings
)

/** Every settings service control's parts read, each read from the ConfigProvider in context. */
export const ControlSettingsLayer = Layer.mergeAll(
  ListenSettingsLayer,
  StorageSettingsLayer,
  LinkSettingsLayer,
  ClickSettingsLayer,
  BusSettingsLayer,
  ProxySettingsLayer,
  SessionSettingsLayer,
  DomainSettingsLayer,
  DnsSettingsLayer,
  WebhookSettingsLayer,
  QrSettingsLayer,
  CompactionSettingsLayer,
  RequestLogSettingsLayer
)
