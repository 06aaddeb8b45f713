import { Data, Effect, Layer } from "effect"
import { pollLoop } from "../jobs/pollLoop.ts"
import { ClickSettings } from "../../shared/settings/ClickSettings.ts"
import { StorageSettings } from "../../shared/settings/StorageSettings.ts"
import { CompactionSettings } from "./CompactionSettings.ts"
import { openPostgres } from "../../shared/db/client.ts"
import { Database } from "../../shared/db/Database.ts"
import { PLAN_LIMITS } from "../kernel/plans.ts"
import { bucketPublisher, type ClickFilePublisher } from "./bucketPublisher.ts"
import { ClickBucket } from "./ClickBucket.ts"
import { ClickStore } from "./ClickStore.ts"
import { sweepDeletions } from "./deletionSweep.ts"
import { applyRetention, compactClicks } from "./compaction.ts"

/**
 * One compaction pass stopped part way (a file unreadable or unwritable, DuckDB out of memory,
 * the database gone while holding the lock). Nothing is lost: every switch is the atomic rename
 * of a manifest, so readers keep the files in force before the pass, and the next pass starts
 * over from what is on disk. Logged, never fatal.
 */
export class CompactionFailed extends Data.TaggedError("CompactionFailed")<{ readonly cause: unknown }> {}

const COMPACTION_LOCK = 7_342_004
/** Deletion markers in the click bucket are purged once a day old, looked for once an hour (deletionSweep.ts). */
const MARKER_AGE_MS = 24 * 3_600_000
const SWEEP_EVERY_MS = 3_600_000
const longestHistoryDays = Math.max(...Object.values(PLAN_LIMITS).map((l) => l.analyticsHistoryDays))

/**
 * Compaction and retention, every RICOCHET_COMPACT_SECONDS; with several control processes on
 * one database, one of them at a time (advisory lock held for the pass).
 */
export const CompactionJob = Layer.effectDiscard(Effect.gen(function*() {
  const { compactSeconds, compactSettleSeconds } = yield* CompactionSettings
  const { clicksBucket } = yield* ClickSettings
  const { databaseUrl, databaseTimeoutSeconds } = yield* StorageSettings
  const store = yield* ClickStore
  const { kind } = yield* Database
  const { connection } = yield* ClickBucket
  /** With the bucket transport, the bucket (a pass waits for NATS a moment, then fails and is retried). */
  const publisher = async (): Promise<ClickFilePublisher | undefined> => {
    if (connection === undefined) return undefined
    const bucket = await Promise.race([connection.bucket(), new Promise<undefined>((resolve) => setTimeout(resolve, 5_000))])
    if (bucket === undefined) throw new Error("the click bucket is not reachable (NATS away)")
    return bucketPublisher(bucket, store.clicksDir)
  }
  let sweptAt = 0
  const compact = async () => {
    const now = Date.now()
    const through = await publisher()
    await compactClicks(store.clicksDir, store.run, now, { settleMs: compactSettleSeconds * 1000, publisher: through })
    await applyRetention(store.clicksDir, longestHistoryDays, now, through)
    if (connection !== undefined && now - sweptAt >= SWEEP_EVERY_MS) {
      await sweepDeletions(await connection.bucket(), await connection.manager(), clicksBucket, MARKER_AGE_MS, now)
      sweptAt = now
    }
  }
  // The embedded database is one process and one connection: no other compactor, and no
  // connection to hold for the length of a pass.
  const pass = Effect.tryPromise({ try: async () => {
    if (kind === "embedded" || databaseUrl === undefined) return compact()
    // The lock lives on a connection of its own, opened for the pass and closed after it (which
    // releases the lock even if the unlock cannot be sent). Not the pool's `reserve()`: a reserve
    // queued while its connection is closed never settles (porsager/postgres#1195), and the
    // pass, and every one after it, waited forever once PostgreSQL came back from an outage.
    const lock = openPostgres(databaseUrl, 1, databaseTimeoutSeconds, { idleTimeoutSeconds: 0 })
    try {
      const [{ locked }] = await lock<{ locked: boolean }[]>`SELECT pg_try_advisory_lock(${COMPACTION_LOCK}) AS locked`
      if (!locked) return
      await compact()
    } finally {
      await lock.end({ timeout: 1 })
    }
  }, catch: (cause) => new CompactionFailed({ cause }) })
  const every = compactSeconds * 1000
  // The first pass waits a period too: a start has enough to do.
  yield* Effect.forkScoped(Effect.andThen(
    Effect.sleep(every),
    pollLoop("click compaction", Effect.as(pass, "idle" as const), { idleMs: every, maxBackoffMs: every })
  ))
}))
