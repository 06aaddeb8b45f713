import type { ItemError } from "../bulkSchema.ts"
import { type ColumnMap, type ImportRow, toImportRow } from "./columns.ts"

/**
 * An upload is stored in pieces of rows, each small enough that writing or reading it is a short
 * statement: at most PIECE_ROWS rows, and no more than about PIECE_CHARS of JSON (a piece always
 * takes at least one row). A cell is kept up to MAX_CELL_CHARS, more than any link field takes, so
 * one row stays small too; a longer cell fails its row.
 */
export const PIECE_ROWS = 1_000
export const PIECE_CHARS = 256 * 1024
export const MAX_CELL_CHARS = 16_384

/**
 * A row as stored: the file's cells in header order, an ignored column's cell left empty (nothing
 * reads it), a mapped cell longer than MAX_CELL_CHARS as null.
 */
export type StoredRow = ReadonlyArray<string | null>

export interface UploadPiece {
  /** The index of its first row among the file's links (0: the line after the header). */
  readonly firstRow: number
  readonly rows: ReadonlyArray<StoredRow>
}

export const storedRow = (cells: ReadonlyArray<string>, columns: ColumnMap): StoredRow =>
  columns.targets.map((target, i) => {
    const cell = cells[i] ?? ""
    if (target === undefined) return ""
    return cell.length > MAX_CELL_CHARS ? null : cell
  })

const rowChars = (row: StoredRow): number => row.reduce((sum: number, cell) => sum + (cell?.length ?? 4) + 3, 2)

/** The rows of a file, in order, cut into pieces. */
export const piecesOf = (rows: ReadonlyArray<StoredRow>): Array<UploadPiece> => {
  const pieces: Array<UploadPiece> = []
  let first = 0
  let chars = 0
  rows.forEach((row, i) => {
    chars += rowChars(row)
    const last = i === rows.length - 1
    if (last || i + 1 - first >= PIECE_ROWS || chars >= PIECE_CHARS) {
      pieces.push({ firstRow: first, rows: rows.slice(first, i + 1) })
      first = i + 1
      chars = 0
    }
  })
  return pieces
}

/** What the database keeps of a piece (made one piece at a time: the whole file at once would hold the event loop). */
export const pieceJson = (piece: UploadPiece): string => JSON.stringify(piece.rows)

/** A stored row read back: the link it asks for, or its failure already. `row` is its line in the file (the header is 1). */
export type PieceRow =
  | { readonly row: number; readonly data: ImportRow }
  | { readonly row: number; readonly error: typeof ItemError.Type }

const tooLong = (row: number, path: ReadonlyArray<string>): PieceRow => {
  const issue = `The cell has more than ${MAX_CELL_CHARS.toLocaleString("en-US")} characters, more than any link field takes`
  return {
    row,
    error: { code: "unprocessable_entity", message: `Invalid request at ${path.join(".")}: ${issue}`, issues: [{ path, message: issue, code: "too_long" }] }
  }
}

/** The rows of a piece stored by piecesOf, for a file whose columns are `columns`. */
export const rowsOfPiece = (piece: { readonly firstRow: number; readonly json: string }, columns: ColumnMap): Array<PieceRow> =>
  (JSON.parse(piece.json) as Array<StoredRow>).map((cells, i) => {
    const row = piece.firstRow + i + 2
    const cut = cells.findIndex((cell) => cell === null)
    if (cut >= 0) return tooLong(row, (columns.targets[cut] ?? "").split("."))
    return { row, data: toImportRow(cells as ReadonlyArray<string>, columns) }
  })
