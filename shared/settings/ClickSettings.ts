import { Config, Context, Result } from "effect"
import * as path from "node:path"
import { natsUrl } from "./BusSettings.ts"
import { bucketName, directory, parsed, positiveNumber, replicas, text } from "./readers.ts"
import { settingsLayer } from "./settingsLayer.ts"
import { dataDir } from "./StorageSettings.ts"

/** The click files both halves handle: engines write them, controls read, compact and mirror them. */
export class ClickSettings extends Context.Service<ClickSettings, {
  /** Parquet click files (engines write, controls read); DATA_DIR/clicks unless set. */
  readonly clicksDir: string
  /** How often an engine seals its spool into a Parquet file; controls' live feeds look that often. */
  readonly rollSeconds: number
  /**
   * How Parquet click files travel from engines to controls: `directory` (engines write into
   * `clicksDir`, which controls read: one machine, or a shared volume) or `bucket` (engines put
   * each sealed file into a NATS JetStream object store and controls mirror it into their own
   * `clicksDir`; no shared path). The bucket is never chosen by default (see clicksTransport).
   */
  readonly clicksTransport: "directory" | "bucket"
  /** Bucket transport: the object store's name and its replicas (3 in a three-node cluster). */
  readonly clicksBucket: string
  readonly clicksReplicas: number
}>()("ricochet/ClickSettings") {}

/**
 * RICOCHET_CLICKS_TRANSPORT, `directory` unless set: an installation that adds NATS for the change
 * bus keeps its clicks where they were, and one bucket is never filled by installations that only
 * happen to share a NATS server. `bucket` needs NATS_URL.
 */
const clicksTransport = parsed(
  "RICOCHET_CLICKS_TRANSPORT",
  Config.map(Config.all([Config.map(text("RICOCHET_CLICKS_TRANSPORT"), (raw) => raw?.toLowerCase()), natsUrl]), ([raw, nats]) => ({ raw, nats })),
  ({ raw, nats }): Result.Result<"directory" | "bucket", string> => {
    if (raw === undefined || raw === "directory") return Result.succeed("directory")
    if (raw !== "bucket") return Result.fail(`must be directory or bucket (got ${JSON.stringify(raw)})`)
    if (nats === undefined) return Result.fail("is bucket, which needs NATS_URL (a NATS server with JetStream)")
    return Result.succeed(raw)
  }
)

export const rollSeconds = positiveNumber("RICOCHET_ROLL_SECONDS", 2)

export const clickSettings: Config.Config<ClickSettings["Service"]> = Config.all({
  clicksDir: directory("RICOCHET_CLICKS_DIR", Config.map(dataDir, (dir) => path.join(dir, "clicks"))),
  rollSeconds,
  clicksTransport,
  clicksBucket: bucketName("RICOCHET_CLICKS_BUCKET", "ricochet-clicks"),
  clicksReplicas: replicas("RICOCHET_CLICKS_REPLICAS", 1)
})

export const ClickSettingsLayer = settingsLayer(ClickSettings, clickSettings)
