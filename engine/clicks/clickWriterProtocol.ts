import { RawClick } from "../../shared/clicks/click.ts"
import type { RawClickColumns } from "../../shared/clicks/writerMessages.ts"
import type { SpoolOptions } from "./spoolSink.ts"

/** What the click writer thread is started with. */
export interface ClickWriterOptions {
  readonly spool: Omit<SpoolOptions, "duck" | "refuse" | "onRolled">
  /**
   * RICOCHET_CLICKS_TRANSPORT=bucket: the spool's Parquet files (spool.clicksDir is then the
   * engine's outbox) are sent to this click bucket (segmentUploader.ts).
   */
  readonly upload?: { readonly natsUrl: string; readonly bucket: string; readonly replicas: number; readonly budgetBytes: number }
  readonly secret: string
  readonly geoHeader: string | undefined
  readonly countryDatabase: string
  readonly cityDatabase: string | undefined
}

/** RawClickColumns while a batch is filled on the redirect thread. */
export type RawClickColumnsBuilder = { -readonly [K in keyof RawClick]: Array<RawClick[K]> }

const FIELDS = Object.keys(RawClick.fields) as ReadonlyArray<keyof RawClick>
for (const field of FIELDS) {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(field)) throw new Error(`RawClick.${field}: a click field name must be a plain identifier`)
}

export const emptyColumns = (): RawClickColumnsBuilder => Object.fromEntries(FIELDS.map((field) => [field, []])) as never

/**
 * A click's fields onto the columns, and back: compiled once from the RawClick Schema's fields
 * so that they cost what a hand-written list would (pushColumns runs on the redirect thread
 * for every counted click).
 */
export const pushColumns = new Function(`return (columns, click) => { ${FIELDS.map((f) => `columns.${f}.push(click.${f});`).join(" ")} }`)() as (
  columns: RawClickColumnsBuilder,
  click: RawClick
) => void

/** The first `count` clicks of `source` onto the columns being filled (a worker's batch, never taken apart into clicks). */
export const appendColumns = new Function(
  `return (columns, source, count) => { for (let i = 0; i < count; i++) { ${FIELDS.map((f) => `columns.${f}.push(source.${f}[i]);`).join(" ")} } }`
)() as (columns: RawClickColumnsBuilder, source: RawClickColumns, count: number) => void

export const clickAt = new Function(`return (c, i) => ({ ${FIELDS.map((f) => `${f}: c.${f}[i]`).join(", ")} })`)() as (
  columns: RawClickColumns,
  i: number
) => RawClick
