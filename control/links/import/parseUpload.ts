import { Effect } from "effect"
import { type ColumnMap, mapColumns } from "./columns.ts"
import { CsvSyntaxError } from "./csvReader.ts"
import { csvRecords } from "./csvRecords.ts"
import { piecesOf, type StoredRow, storedRow, type UploadPiece } from "./pieces.ts"

/** At most this many links in one file. */
export const MAX_IMPORT_ROWS = 100_000

/** Past this the upload is refused unread: 100,000 rows of a few hundred bytes each, with room to spare. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024

export interface ParsedUpload {
  readonly headers: ReadonlyArray<string>
  readonly columns: ColumnMap
  readonly totalRows: number
  /** The rows, in order, as they are stored (see pieces.ts). */
  readonly pieces: ReadonlyArray<UploadPiece>
}

/** What is wrong with the file as a whole: unreadable (400) or not an import (422, at `field`). */
export type UploadProblem =
  | { readonly kind: "unreadable"; readonly message: string }
  | { readonly kind: "invalid"; readonly message: string }

/** Spreadsheets in some locales save with `;` or tabs: the header line says which. */
const delimiterOf = (text: string): string => {
  const ends = [text.indexOf("\n"), text.indexOf("\r"), text.length].filter((i) => i >= 0)
  const header = text.slice(text.charCodeAt(0) === 0xfeff ? 1 : 0, Math.min(...ends))
  const counts = [",", ";", "\t"].map((d) => [d, header.split(d).length] as const)
  return counts.reduce((best, c) => (c[1] > best[1] ? c : best))[0]
}

const tooMany = { kind: "invalid", message: `The file has more than ${MAX_IMPORT_ROWS.toLocaleString("en-US")} links` } as const

/**
 * Reads an uploaded CSV (UTF-8, a header line first) into the pieces a job stores, checking the
 * file as a whole: the header must name a url column, and there must be 1 to MAX_IMPORT_ROWS
 * links. Parsed in slices (see csvRecords), so a large file never holds the event loop for long.
 */
export const parseUpload = (text: string): Effect.Effect<ParsedUpload, UploadProblem> =>
  Effect.tryPromise({
    try: async (): Promise<ParsedUpload | UploadProblem> => {
      let headers: Array<string> | undefined
      let columns: ColumnMap | undefined
      const rows: Array<StoredRow> = []
      for await (const records of csvRecords(text, delimiterOf(text))) {
        for (const record of records) {
          if (columns === undefined) {
            headers = record
            columns = mapColumns(record)
            if (!columns.targets.includes("url")) {
              return { kind: "invalid", message: "No destination column: name one url (or long_url, longUrl, destination_url)" }
            }
          } else {
            if (rows.length === MAX_IMPORT_ROWS) return tooMany
            rows.push(storedRow(record, columns))
          }
        }
      }
      if (headers === undefined || columns === undefined) {
        return { kind: "invalid", message: "The file is empty; expected a header line and one line per link" }
      }
      if (rows.length === 0) return { kind: "invalid", message: "The file has a header line but no links" }
      return { headers, columns, totalRows: rows.length, pieces: piecesOf(rows) }
    },
    catch: (error) => error
  }).pipe(
    // Anything but a syntax error thrown while reading is a bug of ours.
    Effect.catch((error): Effect.Effect<never, UploadProblem> =>
      error instanceof CsvSyntaxError
        ? Effect.fail({ kind: "unreadable", message: `The file is not readable CSV: ${error.message}` })
        : Effect.die(error)
    ),
    Effect.flatMap((read) => ("kind" in read ? Effect.fail(read) : Effect.succeed(read)))
  )
