import { parse } from "csv-parse/sync"
import { type ColumnMap, type ImportRow, mapColumns, toImportRow } from "./columns.ts"

/** At most this many links in one file. */
export const MAX_IMPORT_ROWS = 100_000

/** Past this the upload is refused unread: 100,000 rows of a few hundred bytes each, with room to spare. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024

export interface ParsedUpload {
  readonly columns: ColumnMap
  /** Each link of the file with its row number (the header is row 1). */
  readonly rows: ReadonlyArray<{ readonly row: number; readonly data: ImportRow }>
}

/** What is wrong with the file as a whole: unreadable (400) or not an import (422, at `field`). */
export type UploadProblem =
  | { readonly kind: "unreadable"; readonly message: string }
  | { readonly kind: "invalid"; readonly message: string }

/** Spreadsheets in some locales save with `;` or tabs: the header line says which. */
const delimiterOf = (text: string): string => {
  const header = text.slice(0, text.search(/\r?\n|$/))
  const counts = [",", ";", "\t"].map((d) => [d, header.split(d).length] as const)
  return counts.reduce((best, c) => (c[1] > best[1] ? c : best))[0]
}

/** Reads an uploaded CSV (UTF-8, a header line first) into rows mapped to link fields. */
export const parseUpload = (text: string): ParsedUpload | UploadProblem => {
  let records: Array<Array<string>>
  try {
    records = parse(text, {
      bom: true,
      delimiter: delimiterOf(text.replace(/^\uFEFF/, "")),
      relax_column_count: true,
      skip_empty_lines: true,
      to: MAX_IMPORT_ROWS + 2
    })
  } catch (error) {
    return { kind: "unreadable", message: `The file is not readable CSV: ${(error as Error).message}` }
  }
  const [headers, ...data] = records
  if (headers === undefined) return { kind: "invalid", message: "The file is empty; expected a header line and one line per link" }
  if (data.length > MAX_IMPORT_ROWS) return { kind: "invalid", message: `The file has more than ${MAX_IMPORT_ROWS.toLocaleString("en-US")} links` }
  const columns = mapColumns(headers)
  if (!columns.targets.includes("url")) {
    return { kind: "invalid", message: "No destination column: name one url (or long_url, longUrl, destination_url)" }
  }
  if (data.length === 0) return { kind: "invalid", message: "The file has a header line but no links" }
  return { columns, rows: data.map((cells, i) => ({ row: i + 2, data: toImportRow(cells, columns) })) }
}
