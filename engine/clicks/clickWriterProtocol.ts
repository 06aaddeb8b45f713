import type { RawClick } from "../../shared/clicks/click.ts"
import type { SpoolOptions } from "./spoolSink.ts"

/** What the click writer thread is started with. */
export interface ClickWriterOptions {
  readonly spool: Omit<SpoolOptions, "duck">
  readonly secret: string
  readonly geoHeader: string | undefined
  readonly countryDatabase: string
  readonly cityDatabase: string | undefined
}

export interface ClickCounts {
  /** Visits seen by audience (bots are seen, never written). */
  readonly clicks: { readonly people: number; readonly agent: number; readonly bot: number }
  /** Clicks fsynced to the spool, and rolled into Parquet. */
  readonly sink: { readonly acknowledged: number; readonly rolled: number }
}

export type ToWriter =
  | { readonly type: "clicks"; readonly clicks: ReadonlyArray<RawClick> }
  | { readonly type: "flush"; readonly id: number }
  | { readonly type: "close" }

export type ToMain =
  | { readonly type: "ready" }
  | { readonly type: "failed"; readonly error: string }
  | ({ readonly type: "counts" } & ClickCounts)
  | { readonly type: "flushed"; readonly id: number; readonly error?: string }
  | { readonly type: "closed" }
