import { Layer } from "effect"
import { ControlParts, CoreLayer } from "./control/control.ts"
import { runProcess } from "./control/runProcess.ts"
import { EngineLayer } from "./engine/EngineLayer.ts"
import { ConfigError, loadConfig, type RicochetConfig } from "./shared/config.ts"

/**
 * `npm start`: control and engine in one process, sharing the database and the bus; the
 * embedded database and in-process bus unless DATABASE_URL / NATS_URL are set.
 */
let config: RicochetConfig
try {
  config = loadConfig()
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(`ricochet: ${error.message}`)
  process.exit(1)
}

runProcess(Layer.mergeAll(ControlParts(config), EngineLayer).pipe(Layer.provide(CoreLayer(config))))
