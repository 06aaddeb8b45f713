import { ControlLayer } from "./control/control.ts"
import { runProcess } from "./control/runProcess.ts"
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

runProcess(ControlLayer(config))
