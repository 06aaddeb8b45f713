import { Schema } from "effect"
import { HttpUrl, Id } from "../kernel/fields.ts"

/** What a webhook can subscribe to. */
export const WEBHOOK_EVENTS = ["link.created", "link.updated", "link.deleted", "domain.verified", "domain.failed", "link.clicked"] as const
export const WebhookEventType = Schema.Literals(WEBHOOK_EVENTS)
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number]

export const MAX_WEBHOOK_URL_LENGTH = 2048

const WebhookUrl = HttpUrl.check(Schema.isMaxLength(MAX_WEBHOOK_URL_LENGTH))

const Events = Schema.Array(WebhookEventType).check(
  Schema.isMinLength(1),
  Schema.makeFilter((events: ReadonlyArray<string>) => new Set(events).size === events.length || "Expected each event once", {
    expected: "each event once"
  })
)

export const Webhook = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(WebhookEventType),
  linkId: Schema.NullOr(Schema.String),
  domainId: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  /** Why the webhook was disabled (after failing for 3 days), or null. */
  disabledReason: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
}).annotate({ identifier: "Webhook" })
export type Webhook = typeof Webhook.Type

/** The creation answer: the only time the signing secret is shown. */
export const WebhookWithSecret = Schema.Struct({ ...Webhook.fields, secret: Schema.String }).annotate({ identifier: "WebhookWithSecret" })

export const WebhookCreate = Schema.Struct({
  url: WebhookUrl,
  events: Events,
  linkId: Schema.optionalKey(Id),
  domainId: Schema.optionalKey(Id)
}).annotate({ identifier: "WebhookCreate" })
export type WebhookCreate = typeof WebhookCreate.Type

export const WebhookUpdate = Schema.Struct({
  url: Schema.optionalKey(WebhookUrl),
  events: Schema.optionalKey(Events),
  linkId: Schema.optionalKey(Schema.NullOr(Id)),
  domainId: Schema.optionalKey(Schema.NullOr(Id)),
  /** true re-enables a webhook that was disabled; false pauses it. */
  enabled: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "WebhookUpdate" })
export type WebhookUpdate = typeof WebhookUpdate.Type

export const WebhookList = Schema.Struct({ data: Schema.Array(Webhook) })

export const DeliveryStatus = Schema.Literals(["pending", "delivered", "failed"])

export const WebhookDelivery = Schema.Struct({
  id: Schema.String,
  /** The webhook-id header: the same on every attempt of this delivery. */
  messageId: Schema.String,
  event: WebhookEventType,
  status: DeliveryStatus,
  attempts: Schema.Int,
  /** The receiver's last HTTP status, or null when it was not reached. */
  responseStatus: Schema.NullOr(Schema.Int),
  /** The first bytes of the receiver's last answer. */
  responseExcerpt: Schema.NullOr(Schema.String),
  /** Why the last attempt failed without an answer (timeout, refused address, …). */
  error: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  lastAttemptAt: Schema.NullOr(Schema.String),
  /** When a pending delivery is tried next. */
  nextAttemptAt: Schema.NullOr(Schema.String)
}).annotate({ identifier: "WebhookDelivery" })
export type WebhookDelivery = typeof WebhookDelivery.Type

export const DeliveryListQuery = Schema.Struct({
  limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
  cursor: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^\d{1,18}$/)))
})

export const DeliveryPage = Schema.Struct({
  data: Schema.Array(WebhookDelivery),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "WebhookDeliveryPage" })
