import { Context, Layer } from "effect"
import { makeWakeSignal, type WakeSignal } from "../../jobs/wakeSignal.ts"

/**
 * The in-process wake-up of the import runners: publishing an upload as a queued job marks it,
 * and the runners are woken once that commit is visible instead of at their next poll (other
 * control processes find the job at theirs, or once its lease lapses).
 */
export class ImportsQueued extends Context.Service<ImportsQueued, WakeSignal>()("ricochet/ImportsQueued") {}

/** One signal per process, provided where the process is assembled. */
export const ImportsQueuedLayer = Layer.sync(ImportsQueued)(makeWakeSignal)
