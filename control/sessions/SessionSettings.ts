import { Config, Context } from "effect"
import { email, origin, positiveNumber } from "../../shared/settings/readers.ts"
import { settingsLayer } from "../../shared/settings/settingsLayer.ts"

/** People and their sessions: the first admin, how long a session lasts unused, where people come from. */
export class SessionSettings extends Context.Service<SessionSettings, {
  /** The first start's admin user signs in with this email. */
  readonly adminEmail: string
  /** A session unused this long is over. */
  readonly sessionIdleHours: number
  /**
   * The origin people reach the API and dashboard at (behind a proxy, say); cookie sessions'
   * unsafe requests may come from it besides the request's own host, its scheme decides the
   * cookie's Secure flag, and the first start prints it as the sign-in URL.
   */
  readonly publicOrigin: string | undefined
}>()("ricochet/SessionSettings") {}

export const sessionSettings: Config.Config<SessionSettings["Service"]> = Config.all({
  adminEmail: Config.map(email("RICOCHET_ADMIN_EMAIL"), (address) => address ?? "admin@localhost"),
  sessionIdleHours: positiveNumber("RICOCHET_SESSION_IDLE_HOURS", 168),
  publicOrigin: origin("RICOCHET_PUBLIC_ORIGIN")
})

export const SessionSettingsLayer = settingsLayer(SessionSettings, sessionSettings)
