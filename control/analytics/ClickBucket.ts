import { Context, Effect, Layer } from "effect"
import { type ClickBucketConnection, clickBucketConnection } from "../../shared/clicks/clickBucket.ts"
import { Configuration } from "../../shared/config.ts"

/**
 * Control's connection to the click bucket when RICOCHET_CLICKS_TRANSPORT is `bucket` (the
 * mirror reads it, compaction writes its merged files through it); undefined with the directory
 * transport.
 */
export class ClickBucket extends Context.Service<ClickBucket, {
  readonly connection: ClickBucketConnection | undefined
}>()("ricochet/ClickBucket") {}

export const ClickBucketLayer = Layer.effect(ClickBucket)(Effect.gen(function*() {
  const config = yield* Configuration
  if (config.clicksTransport !== "bucket" || config.natsUrl === undefined) return ClickBucket.of({ connection: undefined })
  const options = { natsUrl: config.natsUrl, bucket: config.clicksBucket, replicas: config.clicksReplicas }
  const connection = yield* Effect.acquireRelease(
    Effect.sync(() => clickBucketConnection(options, "control click bucket")),
    // close() never rejects.
    (opened) => Effect.promise(() => opened.close())
  )
  return ClickBucket.of({ connection })
}))
