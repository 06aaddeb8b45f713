import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Exit, Layer } from "effect"
import { installConsoleLogging, LoggingLayer } from "../shared/logging/installLogging.ts"
import { startupFailureOf } from "../shared/startup/startupFailure.ts"

/**
 * Runs a long-lived process until SIGINT/SIGTERM. A stop by signal is the normal way to end a
 * server: once the scopes have closed (servers stopped, in-flight requests answered, database
 * closed), it exits 0 rather than Effect's default 130. A failed start is one error line (a
 * StartupFailure names the setting; anything else keeps its cause) and exit 1.
 */
export const runProcess = <E>(layer: Layer.Layer<never, E>) => {
  // From here on every log line, console's and Effect's, is in the one format (JSON or pretty).
  installConsoleLogging()
  return NodeRuntime.runMain(Layer.launch(Layer.provide(layer, LoggingLayer)), {
    // Reported here, in the process's log format and level, instead of by runMain's default logger.
    disableErrorReporting: true,
    teardown: (exit, onExit) => {
      // A stop this process asked for because of a fault (an engine id found taken) set its exit code first.
      if (Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)) return onExit(typeof process.exitCode === "number" ? process.exitCode : 0)
      const refusal = startupFailureOf(exit.cause)
      if (refusal !== undefined) console.error(`ricochet: ${refusal.message}`)
      else console.error("ricochet: stopped by an unexpected failure", Cause.pretty(exit.cause))
      onExit(1)
    }
  })
}
