import type { ClickRecord } from "../../shared/clicks/click.ts"
import { CLICK_FIELDS } from "../../shared/clicks/clickColumns.ts"

/** A people click on a desktop Chrome with nothing optional set; `fields` override any part. */
export const clickRecord = (fields: Partial<ClickRecord> = {}): ClickRecord => ({
  timestamp: 0,
  workspaceId: "ws_a",
  linkId: "lnk_1",
  domain: "acme.localhost",
  slug: "one",
  url: "https://example.com/landing",
  audience: "people",
  country: null,
  region: null,
  city: null,
  device: "desktop",
  browser: "Chrome",
  os: "Windows",
  refererHost: null,
  utmSource: null,
  utmMedium: null,
  utmCampaign: null,
  utmTerm: null,
  utmContent: null,
  abVariant: null,
  visitorHash: "v",
  ...fields
})

/**
 * A row DuckDB read from a click file, as the ClickRecord it was written from: columns to fields
 * by CLICK_FIELDS. Select the timestamp as epoch milliseconds (`epoch_ms(timestamp) AS timestamp`).
 */
export const clickFromRow = (row: Readonly<Record<string, unknown>>): ClickRecord =>
  Object.fromEntries(
    CLICK_FIELDS.map(({ field, name, type }) => [field, type === "TIMESTAMP" ? Number(row[name]) : row[name]])
  ) as unknown as ClickRecord
