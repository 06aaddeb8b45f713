import { Data, Effect, Layer } from "effect"
import { Configuration } from "../shared/config.ts"
import { Database } from "../shared/db/Database.ts"
import { ChangeBus } from "../shared/bus/ChangeBus.ts"
import { hostname } from "node:os"
import * as path from "node:path"
import { startEngine } from "./engine.ts"

/** The engine did not start (its port taken, the database unreachable, the click spool not opened). */
export class EngineStartError extends Data.TaggedError("EngineStartError")<{ readonly cause: unknown }> {
  override get message() {
    return `the engine did not start: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

/**
 * The engine as a scoped resource: started with the process, stopped gracefully (in-flight
 * requests answered, clicks flushed) when the process is interrupted by SIGTERM or SIGINT.
 * Clicks go to the spool and from there to Parquet under the clicks directory.
 */
export const EngineLayer = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* Configuration
  const { sql } = yield* Database
  const bus = yield* ChangeBus
  const engineId = config.engineId ?? `${hostname()}-${config.enginePort}`
  const spool = {
    spoolDir: path.join(config.spoolDir, engineId),
    clicksDir: config.clicksDir,
    engineId,
    fsyncMs: config.spoolFsyncMs,
    rollMs: config.rollSeconds * 1000,
    maxPendingClicks: config.spoolBufferClicks,
    maxPendingBytes: Math.floor(config.spoolBufferMegabytes * 1024 * 1024)
  }
  console.log("Starting the engine…")
  const engine = yield* Effect.acquireRelease(
    Effect.tryPromise({ try: () => startEngine({ config, sql, bus, spool }), catch: (cause) => new EngineStartError({ cause }) }),
    // Cannot reject (.catch): a stop that fails has nothing left to retry; the process is ending.
    (engine) => Effect.promise(() => engine.stop().catch((error) => console.error("engine: stopping failed", error)))
  )
  const host = config.listenHost === "0.0.0.0" ? "localhost" : config.listenHost
  console.log(`Ricochet engine: redirects on http://${host}:${engine.port}`)
}))
