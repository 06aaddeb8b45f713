import { Config, Context } from "effect"
import { dnsServers } from "../../shared/settings/readers.ts"
import { settingsLayer } from "../../shared/settings/settingsLayer.ts"

/** The DNS servers control asks: domain verification and webhook deliveries both resolve through them. */
export class DnsSettings extends Context.Service<DnsSettings, {
  /** host:port entries; the system resolver when empty. */
  readonly dnsServers: ReadonlyArray<string>
}>()("ricochet/DnsSettings") {}

export const dnsSettings: Config.Config<DnsSettings["Service"]> = Config.all({ dnsServers: dnsServers("RICOCHET_DNS_SERVERS") })

export const DnsSettingsLayer = settingsLayer(DnsSettings, dnsSettings)
