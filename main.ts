// First: on an unsupported Node.js, one line and exit 1 before anything else loads.
import "./shared/startup/nodeVersion.ts"
import { Layer } from "effect"
import { ControlParts, CoreLayer, Ready, SettingsFrom } from "./control/control.ts"
import { runProcess } from "./control/runProcess.ts"
import { EngineConfigurationLayer } from "./engine/EngineConfiguration.ts"
import { EngineLayer } from "./engine/EngineLayer.ts"
import { EngineServesProcessMetrics } from "./engine/ops/engineMetrics.ts"
import { ConfigError, loadConfig, type RicochetConfig } from "./config.ts"
import { portProblem } from "./shared/startup/ports.ts"

/**
 * `npm start`: control and engine in one process, sharing the database and the bus; the
 * embedded database and in-process bus unless DATABASE_URL / NATS_URL are set.
 */
// What every part reads its settings from: this copy of the environment, validated here first.
const environment = { ...process.env }
let config: RicochetConfig
try {
  config = loadConfig(environment)
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(`ricochet: ${error.message}`)
  process.exit(1)
}

const taken = await portProblem(config.listenHost, [
  { port: config.apiPort, variable: "RICOCHET_API_PORT", what: "API" },
  { port: config.enginePort, variable: "RICOCHET_ENGINE_PORT", what: "short links" },
  { port: config.controlAdminPort, host: config.controlAdminHost, variable: "RICOCHET_CONTROL_ADMIN_PORT", what: "control health and metrics" },
  { port: config.engineAdminPort, host: config.engineAdminHost, variable: "RICOCHET_ENGINE_ADMIN_PORT", what: "engine health and metrics" }
])
if (taken !== undefined) {
  console.error(taken)
  process.exit(1)
}

// One process: control's /metrics carries the process's own series, the engine's does not repeat them.
const Engine = EngineLayer.pipe(Layer.provide(Layer.succeed(EngineServesProcessMetrics)(false)), Layer.provide(EngineConfigurationLayer))
runProcess(Ready(true).pipe(
  Layer.provide(Layer.merge(ControlParts, Engine)),
  Layer.provide(CoreLayer),
  Layer.provide(SettingsFrom(environment))
))
