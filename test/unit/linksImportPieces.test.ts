import { describe, expect, it } from "vitest"
import { mapColumns } from "../../control/links/import/columns.ts"
import { MAX_CELL_CHARS, PIECE_CHARS, PIECE_ROWS, pieceJson, piecesOf, rowsOfPiece, storedRow } from "../../control/links/import/pieces.ts"

const columns = mapColumns(["url", "visits", "title", "utm_source"])

describe("import pieces", () => {
  it("stores a row's cells in header order, ignored columns empty, a cell too long for any field as null", () => {
    expect(storedRow(["https://e.com", "42", "T", "news"], columns)).toEqual(["https://e.com", "", "T", "news"])
    expect(storedRow(["https://e.com"], columns)).toEqual(["https://e.com", "", "", ""])
    expect(storedRow(["https://e.com", "x".repeat(MAX_CELL_CHARS + 1), "y".repeat(MAX_CELL_CHARS + 1)], columns))
      .toEqual(["https://e.com", "", null, ""])
  })

  it.each([
    { name: "at most PIECE_ROWS rows a piece", rows: PIECE_ROWS * 2 + 1, cell: 10, sizes: [PIECE_ROWS, PIECE_ROWS, 1] },
    { name: "about PIECE_CHARS of JSON a piece", rows: 40, cell: 16_000, sizes: [17, 17, 6] },
    { name: "one row a piece when a row alone is that large", rows: 2, cell: PIECE_CHARS, sizes: [1, 1] }
  ])("cuts $name", ({ rows, cell, sizes }) => {
    const all = Array.from({ length: rows }, (_, i) => [`https://e.com/${i}`, "", "t".repeat(Math.min(cell, MAX_CELL_CHARS)), "s".repeat(Math.max(0, cell - MAX_CELL_CHARS))])
    const pieces = piecesOf(all)
    expect(pieces.map((p) => p.rows.length)).toEqual(sizes)
    expect(pieces.map((p) => p.firstRow)).toEqual(sizes.map((_, i) => sizes.slice(0, i).reduce((a, b) => a + b, 0)))
    for (const piece of pieces) expect(pieceJson(piece).length).toBeLessThan(PIECE_CHARS + 3 * MAX_CELL_CHARS)
  })

  it("reads rows back with their line in the file, and fails a row whose cell was too long at its field", () => {
    const [piece] = piecesOf([
      storedRow(["https://e.com/a", "1", "A", ""], columns),
      storedRow(["https://e.com/b", "2", "", "x".repeat(MAX_CELL_CHARS + 1)], columns)
    ])
    const rows = rowsOfPiece({ firstRow: 1_000, json: pieceJson(piece!) }, columns)
    expect(rows[0]).toEqual({ row: 1_002, data: { input: { url: "https://e.com/a", title: "A" } } })
    expect(rows[1]).toMatchObject({
      row: 1_003,
      error: { code: "unprocessable_entity", issues: [{ path: ["utm", "source"], code: "too_long" }] }
    })
  })
})
