import { Data, Effect, Layer } from "effect"
import { EngineConfiguration } from "./EngineConfiguration.ts"
import { Database } from "../shared/db/Database.ts"
import { ChangeBus } from "../shared/bus/ChangeBus.ts"
import { hostname } from "node:os"
import * as path from "node:path"
import { describeHolder, lockDirectory } from "../shared/startup/directoryLock.ts"
import { StartupFailure } from "../shared/startup/startupFailure.ts"
import { startEngine } from "./engine.ts"
import { EngineServesProcessMetrics } from "./ops/engineMetrics.ts"

/** The engine did not start (its port taken, the database unreachable, the click spool not opened). */
export class EngineStartError extends Data.TaggedError("EngineStartError")<{ readonly cause: unknown }> {
  override get message() {
    return `the engine did not start: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

const inUse = (engineId: string, by: string) =>
  new StartupFailure({
    message: `RICOCHET_ENGINE_ID: the engine id ${JSON.stringify(engineId)} is in use by another engine (${by}); ` +
      "every engine needs its own id, or their click files overwrite each other"
  })

/**
 * The engine's id, held while it runs: its spool directory locked on this machine, and the id
 * claimed on the bus among all the engines (NATS). Two engines with one id write click files of
 * the same names, and one's clicks are lost without a word: the second is refused at its start,
 * and one that finds later that another holds its id (claimed while NATS was away) stops.
 */
const holdEngineId = (engineId: string, spoolDir: string) =>
  Effect.gen(function*() {
    const bus = yield* ChangeBus
    const lock = yield* Effect.acquireRelease(
      Effect.promise(() => lockDirectory(spoolDir, `engine ${engineId}`)),
      (lock) => ("heldBy" in lock ? Effect.void : Effect.promise(() => lock.release()))
    )
    if ("heldBy" in lock) return yield* inUse(engineId, describeHolder(lock.heldBy))
    if (bus.claim === undefined) return
    const holder = JSON.stringify({ host: hostname(), pid: process.pid, spoolDir: path.resolve(spoolDir), since: new Date().toISOString() })
    const claim = yield* Effect.acquireRelease(
      Effect.promise(() =>
        bus.claim!({
          key: `engine.${engineId.replace(/[^A-Za-z0-9_-]/g, "_")}`,
          holder,
          // This machine's earlier life of this engine: the spool lock just taken proves it has ended.
          mayReplace: (current) => {
            try {
              const other = JSON.parse(current) as { host?: string; spoolDir?: string }
              return other.host === hostname() && other.spoolDir === path.resolve(spoolDir)
            } catch {
              return false
            }
          },
          onConflict: (current) => {
            console.error(`ricochet: ${inUse(engineId, current).message}; stopping`)
            process.exitCode = 1
            process.kill(process.pid, "SIGTERM")
          }
        })
      ),
      (claim) => (claim.held ? Effect.promise(() => claim.release()) : Effect.void)
    )
    if (!claim.held) return yield* inUse(engineId, claim.by)
  })

/**
 * The engine as a scoped resource: started with the process, stopped gracefully (in-flight
 * requests answered, clicks flushed) when the process is interrupted by SIGTERM or SIGINT.
 * Clicks go to the spool and from there to Parquet under the clicks directory.
 */
export const EngineLayer = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* EngineConfiguration
  const { sql } = yield* Database
  const bus = yield* ChangeBus
  const engineId = config.engineId ?? `${hostname()}-${config.enginePort}`
  const spoolDir = path.join(config.spoolDir, engineId)
  const spool = {
    spoolDir,
    // With the bucket transport the Parquet files wait in an outbox of this engine's own (locked
    // with its spool) until the bucket has them; controls keep their clicks directories to themselves.
    clicksDir: config.clicksTransport === "bucket" ? path.join(spoolDir, "outbox") : config.clicksDir,
    engineId,
    fsyncMs: config.spoolFsyncMs,
    rollMs: config.rollSeconds * 1000,
    maxPendingClicks: config.spoolBufferClicks,
    maxPendingBytes: Math.floor(config.spoolBufferMegabytes * 1024 * 1024)
  }
  const processWide = yield* EngineServesProcessMetrics
  yield* holdEngineId(engineId, spool.spoolDir)
  console.log("Starting the engine…")
  const engine = yield* Effect.acquireRelease(
    Effect.tryPromise({ try: () => startEngine({ config, sql, bus, spool, processMetrics: processWide }), catch: (cause) => new EngineStartError({ cause }) }),
    // Cannot reject (.catch): a stop that fails has nothing left to retry; the process is ending.
    (engine) =>
      Effect.promise(async () => {
        const started = Date.now()
        console.log("engine: stopping: no new connections, answering what was received, writing the clicks")
        await engine.stop().then(
          () => console.log(`engine: stopped in ${Date.now() - started} ms`),
          (error) => console.error("engine: stopping failed", error)
        )
      })
  )
  const host = config.listenHost === "0.0.0.0" ? "localhost" : config.listenHost
  console.log(`Ricochet engine: redirects on http://${host}:${engine.port}`)
}))
