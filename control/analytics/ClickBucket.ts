import { Context, Effect, Layer } from "effect"
import { type ClickBucketConnection, clickBucketConnection } from "../../shared/clicks/clickBucket.ts"
import { BusSettings } from "../../shared/settings/BusSettings.ts"
import { ClickSettings } from "../../shared/settings/ClickSettings.ts"

/**
 * Control's connection to the click bucket when RICOCHET_CLICKS_TRANSPORT is `bucket` (the
 * mirror reads it, compaction writes its merged files through it); undefined with the directory
 * transport.
 */
export class ClickBucket extends Context.Service<ClickBucket, {
  readonly connection: ClickBucketConnection | undefined
}>()("ricochet/ClickBucket") {}

export const ClickBucketLayer = Layer.effect(ClickBucket)(Effect.gen(function*() {
  const { clicksTransport, clicksBucket, clicksReplicas } = yield* ClickSettings
  const { natsUrl } = yield* BusSettings
  if (clicksTransport !== "bucket" || natsUrl === undefined) return ClickBucket.of({ connection: undefined })
  const options = { natsUrl, bucket: clicksBucket, replicas: clicksReplicas }
  const connection = yield* Effect.acquireRelease(
    Effect.sync(() => clickBucketConnection(options, "control click bucket")),
    // close() never rejects.
    (opened) => Effect.promise(() => opened.close())
  )
  return ClickBucket.of({ connection })
}))
