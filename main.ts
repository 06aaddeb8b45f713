import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { ControlLayer } from "./control/control.ts"
import { ConfigError, loadConfig, type RicochetConfig } from "./shared/config.ts"

/** `npm start`: everything in one process, on the embedded default unless DATABASE_URL is set. */
let config: RicochetConfig
try {
  config = loadConfig()
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(`ricochet: ${error.message}`)
  process.exit(1)
}

NodeRuntime.runMain(Layer.launch(ControlLayer(config)))
