import { Schema, Struct } from "effect"
import { RawClick } from "./click.ts"

/**
 * The messages between an engine's redirect thread and its click writer thread (engine/clicks/
 * clickChannel.ts and clickWriter.ts). Each end decodes what it receives against these.
 */

/**
 * A batch of raw clicks as columns, one array per RawClick field, from an HTTP worker thread to
 * the main thread (which puts them in its ClickBatch for the writer): the structured clone then
 * writes no field names per click.
 */
export const RawClickColumns = Schema.Struct(Struct.map(RawClick.fields, Schema.Array)).check(
  Schema.makeFilter((columns) => {
    const lengths = new Set(Object.values(columns).map((column) => column.length))
    return lengths.size <= 1 || "Expected columns of one length"
  }, { expected: "columns of one length" })
)
export type RawClickColumns = typeof RawClickColumns.Type

/**
 * The RawClick fields a ClickBatch carries as ids into its string table, in this order: every
 * string field but the address, which repeats least (interning one costs the redirect thread
 * more than cloning it).
 */
export const INTERNED_FIELDS = [
  "workspaceId", "linkId", "domain", "slug", "url", "userAgent", "referer", "geoHeader", "signatureAgent"
] as const satisfies ReadonlyArray<keyof RawClick>
// The batch carries timestamp, variant and address in their own arrays; any other field must be listed above.
{
  const carried = new Set<string>([...INTERNED_FIELDS, "timestamp", "variant", "ip"])
  const fields = Object.keys(RawClick.fields)
  if (fields.length !== carried.size || fields.some((field) => !carried.has(field))) throw new Error("INTERNED_FIELDS does not cover RawClick's string fields")
}
/** ClickBatch.variants for a click without an A/B variant. */
export const NO_VARIANT = -1

/**
 * A batch of raw clicks from the redirect thread to the click writer: numbers in typed arrays and
 * every string as an id into a table both ends keep, so the structured clone that carries it
 * copies each distinct string once (user agents, addresses, links and destinations repeat) and
 * the writer allocates no string per click nor decodes one: 0.6 µs less a click on the
 * redirect thread, several on the writer's (bench/README.md#performance).
 *
 * `strings` extend the writer's table: their ids follow the `base` ids it holds (after forgetting
 * all of them when `reset`). Click `i`'s INTERNED_FIELDS[f] is the string `ids[i * INTERNED_FIELDS.length + f]`.
 * A writer whose table does not hold `base` strings (it refused a batch) asks for the whole
 * table again (`resync`).
 */
export const ClickBatch = Schema.Struct({
  reset: Schema.Boolean,
  base: Schema.Int,
  strings: Schema.Array(Schema.String),
  timestamps: Schema.instanceOf(Float64Array),
  variants: Schema.instanceOf(Int32Array),
  ips: Schema.Array(Schema.String),
  ids: Schema.instanceOf(Uint32Array)
}).check(
  Schema.makeFilter((batch) =>
    batch.variants.length === batch.timestamps.length && batch.ips.length === batch.timestamps.length && batch.ids.length === batch.timestamps.length * INTERNED_FIELDS.length ||
    "Expected a variant, an address and an id per interned field for every timestamp", { expected: "arrays of one click count" }),
  Schema.makeFilter((batch) => batch.timestamps.every(Number.isFinite) || "Expected finite timestamps", { expected: "finite timestamps" }),
  Schema.makeFilter((batch) => batch.variants.every((v) => v >= NO_VARIANT) || `Expected variants of at least ${NO_VARIANT}`, { expected: "variants" })
)
export type ClickBatch = typeof ClickBatch.Type

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
  Schema.Struct({ type: Schema.Literal("clicks"), clicks: ClickBatch }),
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
  /** The writer's string table is not the one the last batch extended: the next batch must carry all of it. */
  Schema.Struct({ type: Schema.Literal("resync") }),
  Schema.Struct({ type: Schema.Literal("closed") })
])
export type ToMain = typeof ToMain.Type
