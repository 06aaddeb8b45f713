import { randomBytes } from "node:crypto"
import { mkdir, rm, writeFile } from "node:fs/promises"
import * as path from "node:path"
import type { ClickColumnType, ClickRecord } from "./click.ts"
import { CLICK_COLUMNS, CLICK_FIELDS } from "./clickColumns.ts"
import { copyToParquet, quote, type SqlRunner } from "./parquet.ts"

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

const number = (value: number | null): string => (value === null ? "" : `${value}`)

const FIELD_TEXT: Record<ClickColumnType, string> = { TIMESTAMP: "number", INTEGER: "number", VARCHAR: "text" }

/**
 * One click as one CSV record, newline-terminated: its fields in CLICK_FIELDS order. Compiled
 * once from CLICK_FIELDS into one template string (field names are the Schema's own
 * identifiers): a loop over the fields costs about a quarter more a click, on the writer thread
 * that shares the cores with the redirects.
 */
export const clickLine = new Function(
  "text",
  "number",
  `return (c) => \`${CLICK_FIELDS.map((c) => `\${${FIELD_TEXT[c.type]}(c.${c.field})}`).join(",")}\\n\``
)(text, number) as (click: ClickRecord) => string

/**
 * What a click's line shares with other clicks: every field but the time, the A/B variant and the
 * visitor hash, which sit first and last. Clicks of one link, kind of visitor and place repeat
 * it, so encodeClicks writes it once and reuses the text: about a third less of what a line
 * costs the writer thread, and a fraction of the strings for the collector to collect.
 */
const VARYING: ReadonlyArray<keyof ClickRecord> = ["timestamp", "abVariant", "visitorHash"]
const SHARED = CLICK_FIELDS.filter((c) => !VARYING.includes(c.field))
const sharedInMiddle = CLICK_FIELDS.length === SHARED.length + 3 && CLICK_FIELDS[0].field === "timestamp" &&
  CLICK_FIELDS.at(-2)!.field === "abVariant" && CLICK_FIELDS.at(-1)!.field === "visitorHash"

const sharedText = new Function("text", "number", `return (c) => \`${SHARED.map((c) => `\${${FIELD_TEXT[c.type]}(c.${c.field})}`).join(",")}\``)(
  text,
  number
) as (click: ClickRecord) => string
const sameShared = new Function(`return (a, b) => ${SHARED.map((c) => `a.${c.field} === b.${c.field}`).join(" && ")}`)() as (a: ClickRecord, b: ClickRecord) => boolean

/** Shared texts by destination URL: a few per URL (its visitors' kinds and places), and a bounded number of URLs. */
const PER_URL = 8
const MAX_URLS = 8192
const sharedByUrl = new Map<string, Array<{ readonly click: ClickRecord; readonly text: string }>>()

const sharedOf = (click: ClickRecord): string => {
  let known = sharedByUrl.get(click.url)
  if (known === undefined) {
    if (sharedByUrl.size >= MAX_URLS) sharedByUrl.clear()
    sharedByUrl.set(click.url, (known = []))
  }
  for (const entry of known) if (sameShared(entry.click, click)) return entry.text
  const made = sharedText(click)
  if (known.length >= PER_URL) known.shift()
  known.push({ click, text: made })
  return made
}

/** A batch of clicks as the bytes appended to a spool segment: clickLine's lines, byte for byte. */
export const encodeClicks = (clicks: ReadonlyArray<ClickRecord>): Buffer => {
  let lines = ""
  if (sharedInMiddle) {
    for (const c of clicks) lines += `${number(c.timestamp)},${sharedOf(c)},${number(c.abVariant)},${text(c.visitorHash)}\n`
  } else {
    for (const click of clicks) lines += clickLine(click)
  }
  return Buffer.from(lines)
}

/** A timestamp is written as epoch milliseconds: read as a BIGINT, selected as a TIMESTAMP. */
const CSV_COLUMNS = `{${CLICK_COLUMNS.map(([name, type]) => `${name}: '${type === "TIMESTAMP" ? "BIGINT" : type}'`).join(", ")}}`
const SELECTED = CLICK_COLUMNS.map(([name, type]) => (type === "TIMESTAMP" ? `epoch_ms(${name}) AS ${name}` : name)).join(", ")

/**
 * A DuckDB SELECT of the click columns from CSV click files.
 * `lenient` skips records that do not parse instead of failing (a torn record at a crash).
 */
export const selectClicksCsv = (file: string, options: { readonly lenient?: boolean } = {}): string =>
  `SELECT ${SELECTED} ` +
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
