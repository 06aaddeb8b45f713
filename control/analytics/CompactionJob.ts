import { Effect, Layer } from "effect"
import { Configuration } from "../../shared/config.ts"
import { Database } from "../../shared/db/Database.ts"
import { PLAN_LIMITS } from "../plans/plans.ts"
import { ClickStore } from "./ClickStore.ts"
import { applyRetention, compactClicks } from "./compaction.ts"

const COMPACTION_LOCK = 7_342_004
const longestHistoryDays = Math.max(...Object.values(PLAN_LIMITS).map((l) => l.analyticsHistoryDays))

/**
 * Compaction and retention, every RICOCHET_COMPACT_SECONDS; with several control processes on
 * one database, one of them at a time (advisory lock held for the pass).
 */
export const CompactionJob = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* Configuration
  const store = yield* ClickStore
  const { sql, kind } = yield* Database
  const compact = async () => {
    const now = Date.now()
    await compactClicks(store.clicksDir, store.run, now, { settleMs: config.compactSettleSeconds * 1000 })
    await applyRetention(store.clicksDir, longestHistoryDays, now)
  }
  // The embedded database is one process and one connection: no other compactor, and no
  // connection to hold for the length of a pass.
  const pass = Effect.promise(async () => {
    if (kind === "embedded") return compact()
    const reserved = await sql.reserve()
    try {
      const [{ locked }] = await reserved<{ locked: boolean }[]>`SELECT pg_try_advisory_lock(${COMPACTION_LOCK}) AS locked`
      if (!locked) return
      try {
        await compact()
      } finally {
        await reserved`SELECT pg_advisory_unlock(${COMPACTION_LOCK})`
      }
    } finally {
      reserved.release()
    }
  }).pipe(Effect.catchCause((cause) => Effect.logWarning("click compaction failed", cause)))
  yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(config.compactSeconds * 1000), pass)))
}))
