import { Config, Context } from "effect"
import { shortDomain } from "../../shared/settings/LinkSettings.ts"
import { hostName, ipv4, positiveNumber } from "../../shared/settings/readers.ts"
import { settingsLayer } from "../../shared/settings/settingsLayer.ts"

/** Custom domains: what their DNS must point at, and how checking them goes. */
export class DomainSettings extends Context.Service<DomainSettings, {
  /** CNAME target for subdomain hosts (the short domain unless set), A record address for apex hosts. */
  readonly cnameTarget: string
  readonly aTarget: string | undefined
  /** A pending domain still wrong after this long becomes failed. */
  readonly domainGraceHours: number
  /** How often each custom domain is re-checked. */
  readonly domainRecheckSeconds: number
}>()("ricochet/DomainSettings") {}

const cnameTarget = Config.flatMap(hostName("RICOCHET_CNAME_TARGET"), (target) => (target === undefined ? shortDomain : Config.succeed(target)))

export const domainSettings: Config.Config<DomainSettings["Service"]> = Config.all({
  cnameTarget,
  aTarget: ipv4("RICOCHET_A_TARGET"),
  domainGraceHours: positiveNumber("RICOCHET_DOMAIN_GRACE_HOURS", 72),
  domainRecheckSeconds: positiveNumber("RICOCHET_DOMAIN_RECHECK_SECONDS", 45)
})

export const DomainSettingsLayer = settingsLayer(DomainSettings, domainSettings)
