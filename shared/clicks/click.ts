import { Schema } from "effect"

/** The analytics device classes (docs/decisions.md#who-clicked). */
export const DeviceClass = Schema.Literals(["desktop", "mobile", "tablet", "tv", "console", "other"])
export type DeviceClass = typeof DeviceClass.Type

/** What the hot path captures of a counted visit: raw, cheap to take; derived later in batches. */
export const RawClick = Schema.Struct({
  timestamp: Schema.Finite,
  workspaceId: Schema.String,
  linkId: Schema.String,
  domain: Schema.String,
  slug: Schema.String,
  /** The final destination URL the visitor was sent to. */
  url: Schema.String,
  variant: Schema.NullOr(Schema.Int),
  ip: Schema.String,
  userAgent: Schema.String,
  referer: Schema.String,
  geoHeader: Schema.String,
  signatureAgent: Schema.String
})
export type RawClick = typeof RawClick.Type

/** The DuckDB types of the click files' columns. */
export type ClickColumnType = "TIMESTAMP" | "VARCHAR" | "INTEGER"

/**
 * A field of ClickRecord stored as a column of this DuckDB type. The click files' columns
 * (CLICK_COLUMNS), the spool's CSV and the Parquet schema are all derived from these annotations,
 * in the order of the fields.
 */
const column = <S extends Schema.Top>(type: ClickColumnType, schema: S) => schema.annotate({ clickColumn: type })

const Text = column("VARCHAR", Schema.String)
const OptionalText = column("VARCHAR", Schema.NullOr(Schema.String))

/** One counted click, as the analytics store it. No raw IP address. Its fields, in order, are the click files' columns. */
export const ClickRecord = Schema.Struct({
  /** Epoch milliseconds. */
  timestamp: column("TIMESTAMP", Schema.Finite),
  workspaceId: Text,
  linkId: Text,
  domain: Text,
  slug: Text,
  url: Text,
  audience: column("VARCHAR", Schema.Literals(["people", "agent"])),
  country: OptionalText,
  region: OptionalText,
  city: OptionalText,
  device: column("VARCHAR", DeviceClass),
  browser: Text,
  os: Text,
  refererHost: OptionalText,
  utmSource: OptionalText,
  utmMedium: OptionalText,
  utmCampaign: OptionalText,
  utmTerm: OptionalText,
  utmContent: OptionalText,
  abVariant: column("INTEGER", Schema.NullOr(Schema.Int)),
  visitorHash: Text
})
export type ClickRecord = typeof ClickRecord.Type

/**
 * Where counted clicks go. `write` takes the batch when called (so calls keep their order) and
 * resolves once it is durable; callers do not wait for one write before making the next. The
 * spool sink implements it; tests use the in-memory one.
 */
export interface ClickSink {
  readonly write: (clicks: ReadonlyArray<ClickRecord>) => Promise<void>
  readonly flush: () => Promise<void>
  readonly close: () => Promise<void>
}

/** Keeps clicks in memory and counts them by audience. */
export class MemoryClickSink implements ClickSink {
  readonly clicks: Array<ClickRecord> = []
  readonly counts = { people: 0, agent: 0 }
  constructor(private readonly keep = 100_000) {}
  async write(clicks: ReadonlyArray<ClickRecord>) {
    for (const click of clicks) {
      this.counts[click.audience]++
      if (this.clicks.length < this.keep) this.clicks.push(click)
    }
  }
  async flush() {}
  async close() {}
}
