import { Config, Context } from "effect"
import { availableParallelism } from "node:os"
import { positiveInteger } from "../../../shared/settings/readers.ts"
import { settingsLayer } from "../../../shared/settings/settingsLayer.ts"

/** QR codes are drawn on threads of their own (QrRenderPool.ts): how many, and how many renders may wait. */
export class QrSettings extends Context.Service<QrSettings, {
  readonly qrWorkers: number
  /** Renders that may wait for a thread, all workspaces together; a workspace may hold a quarter of them. */
  readonly qrQueue: number
}>()("ricochet/QrSettings") {}

/**
 * One thread per core but one (the event loop keeps a core), at least one and at most two, as a
 * few codes a second is plenty and each thread holds its own memory.
 */
const defaultQrWorkers = () => Math.max(1, Math.min(2, availableParallelism() - 1))

export const qrSettings: Config.Config<QrSettings["Service"]> = Config.all({
  qrWorkers: positiveInteger("RICOCHET_QR_WORKERS", defaultQrWorkers()),
  qrQueue: positiveInteger("RICOCHET_QR_QUEUE", 16)
})

export const QrSettingsLayer = settingsLayer(QrSettings, qrSettings)
