import { Config, Context } from "effect"
import { flag, nonNegativeNumber } from "../../shared/settings/readers.ts"
import { settingsLayer } from "../../shared/settings/settingsLayer.ts"

/** Which API requests are logged. */
export class RequestLogSettings extends Context.Service<RequestLogSettings, {
  /** One log line per API request (RICOCHET_ACCESS_LOG). */
  readonly accessLog: boolean
  /** A request answered later than this many milliseconds is logged; 0 logs none. */
  readonly slowRequestMs: number
}>()("ricochet/RequestLogSettings") {}

export const requestLogSettings: Config.Config<RequestLogSettings["Service"]> = Config.all({
  accessLog: flag("RICOCHET_ACCESS_LOG"),
  slowRequestMs: nonNegativeNumber("RICOCHET_SLOW_REQUEST_MS", 1000)
})

export const RequestLogSettingsLayer = settingsLayer(RequestLogSettings, requestLogSettings)
