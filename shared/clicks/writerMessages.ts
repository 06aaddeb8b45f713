import { Schema, Struct } from "effect"
import { RawClick } from "./click.ts"

/**
 * The messages between an engine's redirect thread and its click writer thread (engine/clicks/
 * clickChannel.ts and clickWriter.ts). Each end decodes what it receives against these.
 */

/**
 * A batch of raw clicks as columns, one array per RawClick field: the structured clone that
 * carries it to the writer thread then writes no field names per click (0.45 instead of 0.72 µs
 * a click on the redirect thread).
 */
export const RawClickColumns = Schema.Struct(Struct.map(RawClick.fields, Schema.Array)).check(
  Schema.makeFilter((columns) => {
    const lengths = new Set(Object.values(columns).map((column) => column.length))
    return lengths.size <= 1 || "Expected columns of one length"
  }, { expected: "columns of one length" })
)
export type RawClickColumns = typeof RawClickColumns.Type

export const ClickCounts = Schema.Struct({
  /** Visits seen by audience (bots are seen, never written). */
  clicks: Schema.Struct({ people: Schema.Int, agent: Schema.Int, bot: Schema.Int }),
  /**
   * Clicks fsynced to the spool (acknowledged) and rolled into Parquet since start; waiting in
   * memory for the disk to take them (`pending`, not yet acknowledged); on disk in the spool and not
   * yet rolled (`unrolled`, an earlier run's leftovers included).
   */
  sink: Schema.Struct({ acknowledged: Schema.Int, rolled: Schema.Int, pending: Schema.Int, unrolled: Schema.Int }),
  /**
   * RICOCHET_CLICKS_TRANSPORT=bucket: Parquet files (and their bytes) waiting on disk for the click
   * bucket, and files put into it since start. Zeros with the directory transport.
   */
  outbox: Schema.Struct({ files: Schema.Int, bytes: Schema.Int, uploaded: Schema.Int }),
  /** Clicks the writer derived and will never write: its spool buffer was full, or it closed before the disk took them. */
  dropped: Schema.Int
})
export type ClickCounts = typeof ClickCounts.Type

/** From the redirect thread to the writer. */
export const ToWriter = Schema.Union([
  Schema.Struct({ type: Schema.Literal("clicks"), clicks: RawClickColumns }),
  Schema.Struct({ type: Schema.Literal("flush"), id: Schema.Int }),
  Schema.Struct({ type: Schema.Literal("close") })
])
export type ToWriter = typeof ToWriter.Type

/** From the writer to the redirect thread. */
export const ToMain = Schema.Union([
  Schema.Struct({ type: Schema.Literal("ready") }),
  Schema.Struct({ type: Schema.Literal("failed"), error: Schema.String }),
  /** `refused`: messages from the redirect thread the writer refused (they did not decode). */
  Schema.Struct({ type: Schema.Literal("counts"), ...ClickCounts.fields, refused: Schema.Int }),
  Schema.Struct({ type: Schema.Literal("flushed"), id: Schema.Int, error: Schema.optionalKey(Schema.String) }),
  Schema.Struct({ type: Schema.Literal("closed") })
])
export type ToMain = typeof ToMain.Type
