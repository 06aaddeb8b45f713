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

/** RawClickColumns while an HTTP worker thread fills a batch (engine/workers/clickForwarder.ts). */
export type RawClickColumnsBuilder = { -readonly [K in keyof RawClick]: Array<RawClick[K]> }

const FIELDS = Object.keys(RawClick.fields) as ReadonlyArray<keyof RawClick>
for (const field of FIELDS) {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(field)) throw new Error(`RawClick.${field}: a click field name must be a plain identifier`)
}

export const emptyColumns = (): RawClickColumnsBuilder => Object.fromEntries(FIELDS.map((field) => [field, []])) as never

/**
 * A click's fields onto the columns: compiled once from the RawClick Schema's fields so that it
 * costs what a hand-written list would (it runs on an HTTP worker thread for every counted click).
 */
export const pushColumns = new Function(`return (columns, click) => { ${FIELDS.map((f) => `columns.${f}.push(click.${f});`).join(" ")} }`)() as (
  columns: RawClickColumnsBuilder,
  click: RawClick
) => void
