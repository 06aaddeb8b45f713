import { Config, Context } from "effect"
import { nonNegativeNumber, positiveNumber } from "../../shared/settings/readers.ts"
import { settingsLayer } from "../../shared/settings/settingsLayer.ts"

/** Compaction of the click files: how often finished hours are compacted, and how long an hour settles first. */
export class CompactionSettings extends Context.Service<CompactionSettings, {
  readonly compactSeconds: number
  readonly compactSettleSeconds: number
}>()("ricochet/CompactionSettings") {}

export const compactionSettings: Config.Config<CompactionSettings["Service"]> = Config.all({
  compactSeconds: positiveNumber("RICOCHET_COMPACT_SECONDS", 300),
  compactSettleSeconds: nonNegativeNumber("RICOCHET_COMPACT_SETTLE_SECONDS", 600)
})

export const CompactionSettingsLayer = settingsLayer(CompactionSettings, compactionSettings)
