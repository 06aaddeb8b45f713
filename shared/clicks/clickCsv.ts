import { randomBytes } from "node:crypto"
import { mkdir, rm, writeFile } from "node:fs/promises"
import * as path from "node:path"
import type { ClickRecord } from "./click.ts"
import { CLICK_COLUMNS, copyToParquet, quote, type SqlRunner } from "./parquet.ts"

/**
 * Clicks as CSV lines: the spool's format and the staging format of every Parquet write.
 *
 * Why CSV: DuckDB reads it natively, so turning a spool segment into Parquet costs no JavaScript
 * per click (decoding msgpack and re-encoding it as NDJSON for DuckDB, the earlier format, cost
 * ~10 µs a click on the same two cores that serve redirects), and writing a line is a template
 * string.
 *
 * Columns are CLICK_COLUMNS in order, the timestamp as epoch milliseconds. Every string is quoted
 * (RFC 4180, `"` doubled), so commas, quotes, newlines and NULs in values survive as they are; an
 * empty unquoted field is null.
 */

const text = (value: string | null): string =>
  value === null ? "" : value.includes('"') ? `"${value.replaceAll('"', '""')}"` : `"${value}"`

/** One click as one CSV record, newline-terminated. */
export const clickLine = (c: ClickRecord): string =>
  `${c.timestamp},${text(c.workspaceId)},${text(c.linkId)},${text(c.domain)},${text(c.slug)},${text(c.url)},${text(c.audience)},` +
  `${text(c.country)},${text(c.region)},${text(c.city)},${text(c.device)},${text(c.browser)},${text(c.os)},${text(c.refererHost)},` +
  `${text(c.utmSource)},${text(c.utmMedium)},${text(c.utmCampaign)},${text(c.utmTerm)},${text(c.utmContent)},` +
  `${c.abVariant === null ? "" : c.abVariant},${text(c.visitorHash)}\n`

/** A batch of clicks as the bytes appended to a spool segment. */
export const encodeClicks = (clicks: ReadonlyArray<ClickRecord>): Buffer => {
  let lines = ""
  for (const click of clicks) lines += clickLine(click)
  return Buffer.from(lines)
}

const CSV_COLUMNS = `{ts: 'BIGINT', ${CLICK_COLUMNS.slice(1).map(([name, type]) => `${name}: '${type}'`).join(", ")}}`

/**
 * A DuckDB SELECT of the click columns (timestamp as TIMESTAMP) from CSV click files.
 * `lenient` skips records that do not parse instead of failing (a torn record at a crash).
 */
export const selectClicksCsv = (file: string, options: { readonly lenient?: boolean } = {}): string =>
  `SELECT epoch_ms(ts) AS timestamp, ${CLICK_COLUMNS.slice(1).map(([name]) => name).join(", ")} ` +
  `FROM read_csv(${quote(file)}, header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', ` +
  `allow_quoted_nulls = false, columns = ${CSV_COLUMNS}${options.lenient ? ", ignore_errors = true" : ""})`

/** Writes clicks to one Parquet file (see copyToParquet), staged as CSV for DuckDB. */
export const writeClicksParquet = async (
  duck: SqlRunner,
  clicks: ReadonlyArray<ClickRecord>,
  target: string,
  options: { readonly sort?: boolean } = {}
): Promise<void> => {
  await mkdir(path.dirname(target), { recursive: true })
  const staging = `${target}.${randomBytes(6).toString("hex")}.csv.tmp`
  try {
    await writeFile(staging, encodeClicks(clicks))
    await copyToParquet(duck, selectClicksCsv(staging), target, options)
  } finally {
    await rm(staging, { force: true })
  }
}
