import { Config, Context, Result } from "effect"
import { enginePort } from "./ListenSettings.ts"
import { HOSTNAME, parsed, text } from "./readers.ts"
import { settingsLayer } from "./settingsLayer.ts"
import { databaseUrl } from "./StorageSettings.ts"

/** What short links are made of: the domain workspaces get names under, and the address visitors type. */
export class LinkSettings extends Context.Service<LinkSettings, {
  readonly shortDomain: string
  readonly linkScheme: "http" | "https"
  /**
   * The port written into `shortLink` (and so what visitors type); undefined for the scheme's own.
   * Only the local default sets it: links must open on the engine's port with no proxy in front.
   */
  readonly linkPort: number | undefined
}>()("ricochet/LinkSettings") {}

export const shortDomain = parsed("RICOCHET_SHORT_DOMAIN", text("RICOCHET_SHORT_DOMAIN"), (raw) => {
  const domain = (raw ?? "localhost").toLowerCase()
  return HOSTNAME.test(domain) ? Result.succeed(domain) : Result.fail(`must be a host name such as short.example.com (got ${JSON.stringify(domain)})`)
})

const configuredScheme = text("RICOCHET_LINK_SCHEME")

/**
 * The embedded default is a laptop: no TLS and no proxy, so links must work as
 * http://…:enginePort out of the box (and the password cookie must not be Secure).
 */
const local = Config.map(Config.all([configuredScheme, databaseUrl]), ([scheme, database]) => scheme === undefined && database === undefined)

export const linkScheme = parsed(
  "RICOCHET_LINK_SCHEME",
  Config.map(Config.all([configuredScheme, local]), ([scheme, isLocal]) => scheme ?? (isLocal ? "http" : "https")),
  (scheme): Result.Result<"http" | "https", string> =>
    scheme === "http" || scheme === "https" ? Result.succeed(scheme) : Result.fail(`must be http or https (got ${JSON.stringify(scheme)})`)
)

const linkPort = Config.map(Config.all([local, enginePort]), ([isLocal, port]) => (isLocal && port !== 80 && port !== 0 ? port : undefined))

export const linkSettings: Config.Config<LinkSettings["Service"]> = Config.all({ shortDomain, linkScheme, linkPort })

export const LinkSettingsLayer = settingsLayer(LinkSettings, linkSettings)
