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
  /** Clicks fsynced to the spool, rolled into Parquet, and waiting in memory for the disk to take them. */
  readonly sink: { readonly acknowledged: number; readonly rolled: number; readonly pending: number }
  /** Clicks the writer derived and will never write: its spool buffer was full, or it closed before the disk took them. */
  readonly dropped: number
}

/**
 * A batch of raw clicks as columns: the structured clone that carries it to the writer thread
 * then writes no field names per click (0.45 instead of 0.72 µs a click on the redirect thread).
 */
export interface RawClickColumns {
  readonly timestamp: Array<number>
  readonly workspaceId: Array<string>
  readonly linkId: Array<string>
  readonly domain: Array<string>
  readonly slug: Array<string>
  readonly url: Array<string>
  readonly variant: Array<number | null>
  readonly ip: Array<string>
  readonly userAgent: Array<string>
  readonly referer: Array<string>
  readonly geoHeader: Array<string>
  readonly signatureAgent: Array<string>
}

export const emptyColumns = (): RawClickColumns => ({
  timestamp: [],
  workspaceId: [],
  linkId: [],
  domain: [],
  slug: [],
  url: [],
  variant: [],
  ip: [],
  userAgent: [],
  referer: [],
  geoHeader: [],
  signatureAgent: []
})

export const pushColumns = (columns: RawClickColumns, click: RawClick): void => {
  columns.timestamp.push(click.timestamp)
  columns.workspaceId.push(click.workspaceId)
  columns.linkId.push(click.linkId)
  columns.domain.push(click.domain)
  columns.slug.push(click.slug)
  columns.url.push(click.url)
  columns.variant.push(click.variant)
  columns.ip.push(click.ip)
  columns.userAgent.push(click.userAgent)
  columns.referer.push(click.referer)
  columns.geoHeader.push(click.geoHeader)
  columns.signatureAgent.push(click.signatureAgent)
}

export const clickAt = (c: RawClickColumns, i: number): RawClick => ({
  timestamp: c.timestamp[i],
  workspaceId: c.workspaceId[i],
  linkId: c.linkId[i],
  domain: c.domain[i],
  slug: c.slug[i],
  url: c.url[i],
  variant: c.variant[i],
  ip: c.ip[i],
  userAgent: c.userAgent[i],
  referer: c.referer[i],
  geoHeader: c.geoHeader[i],
  signatureAgent: c.signatureAgent[i]
})

export type ToWriter =
  | { readonly type: "clicks"; readonly clicks: RawClickColumns }
  | { readonly type: "flush"; readonly id: number }
  | { readonly type: "close" }

export type ToMain =
  | { readonly type: "ready" }
  | { readonly type: "failed"; readonly error: string }
  | ({ readonly type: "counts" } & ClickCounts)
  | { readonly type: "flushed"; readonly id: number; readonly error?: string }
  | { readonly type: "closed" }
