import { Config, Context } from "effect"
import { flag, positiveInteger, positiveNumber } from "../../shared/settings/readers.ts"
import { settingsLayer } from "../../shared/settings/settingsLayer.ts"

/** Webhooks: which receivers are allowed, how deliveries are retried, how many wait. */
export class WebhookSettings extends Context.Service<WebhookSettings, {
  /** Accept http://127.0.0.1 / localhost receivers (tests, local tools); else https to public addresses only. */
  readonly webhooksAllowLoopback: boolean
  /** The first retry's delay; each next one doubles, up to an hour, for 24 hours. */
  readonly webhookRetryBaseSeconds: number
  /** Pending deliveries kept per webhook (paused, disabled or failing); past it the oldest are dropped. */
  readonly webhookBacklog: number
}>()("ricochet/WebhookSettings") {}

export const webhookSettings: Config.Config<WebhookSettings["Service"]> = Config.all({
  webhooksAllowLoopback: flag("RICOCHET_WEBHOOKS_ALLOW_LOOPBACK"),
  webhookRetryBaseSeconds: positiveNumber("RICOCHET_WEBHOOK_RETRY_BASE_SECONDS", 5),
  webhookBacklog: positiveInteger("RICOCHET_WEBHOOK_BACKLOG", 10_000)
})

export const WebhookSettingsLayer = settingsLayer(WebhookSettings, webhookSettings)
