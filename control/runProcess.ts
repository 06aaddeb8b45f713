import { NodeRuntime } from "@effect/platform-node"
import { Cause, Exit, Layer, Runtime } from "effect"
import { installConsoleLogging, LoggingLayer } from "../shared/logging/installLogging.ts"

/**
 * Runs a long-lived process until SIGINT/SIGTERM. A stop by signal is the normal way to end a
 * server: once the scopes have closed (servers stopped, in-flight requests answered, database
 * closed), it exits 0 rather than Effect's default 130.
 */
export const runProcess = <E>(layer: Layer.Layer<never, E>) => {
  // From here on every log line, console's and Effect's, is in the one format (JSON or pretty).
  installConsoleLogging()
  return NodeRuntime.runMain(Layer.launch(Layer.provide(layer, LoggingLayer)), {
    teardown: (exit, onExit) =>
      Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
  })
}
