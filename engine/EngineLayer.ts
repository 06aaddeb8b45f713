import { Effect, Layer } from "effect"
import { ControlConfig } from "../control/ControlConfig.ts"
import { Database } from "../control/db/Database.ts"
import { ChangeBus } from "../control/outbox/publisher.ts"
import { MemoryClickSink } from "./clicks/click.ts"
import { startEngine } from "./engine.ts"

/**
 * The engine as a scoped resource: started with the process, stopped gracefully (in-flight
 * requests answered, clicks flushed) when the process is interrupted by SIGTERM or SIGINT.
 * Clicks go to an in-memory counting sink until the Parquet writer lands.
 */
export const EngineLayer = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* ControlConfig
  const { sql } = yield* Database
  const bus = yield* ChangeBus
  const engine = yield* Effect.acquireRelease(
    Effect.promise(() => startEngine({ config, sql, bus, sink: new MemoryClickSink() })),
    (engine) => Effect.promise(() => engine.stop())
  )
  const host = config.listenHost === "0.0.0.0" ? "localhost" : config.listenHost
  console.log(`Ricochet engine: redirects on http://${host}:${engine.port}`)
}))
