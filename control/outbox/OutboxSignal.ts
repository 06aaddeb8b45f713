import { Context, Layer } from "effect"
import { makeWakeSignal, type WakeSignal } from "../jobs/wakeSignal.ts"

/**
 * The in-process wake-up of the outbox publisher: a transaction that wrote events marks it, and
 * the publisher is woken once the transaction has committed instead of at its next poll. On
 * PostgreSQL, NOTIFY does this across processes; the embedded database has no LISTEN, and this is
 * how its changes reach the engine within a millisecond or two.
 */
export class OutboxSignal extends Context.Service<OutboxSignal, WakeSignal>()("ricochet/OutboxSignal") {}

/** One signal per process, provided where the process is assembled. */
export const OutboxSignalLayer = Layer.sync(OutboxSignal)(makeWakeSignal)
