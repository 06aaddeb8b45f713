import { NodeRuntime } from "@effect/platform-node"
import { Cause, Exit, Layer, Runtime } from "effect"

/**
 * Runs a long-lived process until SIGINT/SIGTERM. A stop by signal is the normal way to end a
 * server: once the scopes have closed (servers stopped, in-flight requests answered, database
 * closed), it exits 0 rather than Effect's default 130.
 */
export const runProcess = <E>(layer: Layer.Layer<never, E>) =>
  NodeRuntime.runMain(Layer.launch(layer), {
    teardown: (exit, onExit) =>
      Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
  })
