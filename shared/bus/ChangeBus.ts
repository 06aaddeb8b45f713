import { Context, Effect, Layer } from "effect"
import { BusSettings } from "../settings/BusSettings.ts"
import { type Bus, memoryBus } from "./bus.ts"
import { natsBus, pingIntervalFor } from "./natsBus.ts"
import { natsServer } from "./natsServer.ts"

/** The change bus as a service, so tests and the embedded default can provide their own. */
export class ChangeBus extends Context.Service<ChangeBus, Bus>()("ricochet/ChangeBus") {}

/**
 * NATS when NATS_URL is set, else the in-process bus of the embedded default. A lost NATS server is
 * noticed within a quarter of the engines' cache TTL (see pingIntervalFor).
 */
export const ChangeBusLayer = (name: string) =>
  Layer.effect(ChangeBus)(Effect.gen(function*() {
    const { natsUrl, cacheTtlSeconds } = yield* BusSettings
    return yield* Effect.acquireRelease(
      natsUrl === undefined
        ? Effect.succeed(memoryBus())
        : Effect.tryPromise({
          try: () => natsBus(natsUrl, name, { pingIntervalMs: pingIntervalFor(cacheTtlSeconds * 1000) }),
          catch: (cause) => new Error(`NATS_URL: could not connect to ${natsServer(natsUrl).shown}: ${String(cause)}`)
        }),
      // Cannot reject (.catch): a bus that fails to close is gone with the process.
      (bus) => Effect.promise(() => bus.close().catch((error) => console.error("change bus: closing failed", error)))
    )
  }))
