import { Context, Layer } from "effect"
import { makeWakeSignal, type WakeSignal } from "../jobs/wakeSignal.ts"

/**
 * The in-process wake-up of the delivery worker: a transaction that enqueued deliveries (or
 * enabled a webhook) marks it, and the worker is woken once the transaction has committed, when
 * it can see the rows, instead of at its next poll (other control processes find them at theirs).
 */
export class WebhooksDue extends Context.Service<WebhooksDue, WakeSignal>()("ricochet/WebhooksDue") {}

/** One signal per process, provided where the process is assembled. */
export const WebhooksDueLayer = Layer.sync(WebhooksDue)(makeWakeSignal)
