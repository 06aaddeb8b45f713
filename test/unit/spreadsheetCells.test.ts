import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { EXPORT_COLUMNS, exportCells } from "../../control/links/export/columns.ts"
import { csvLine } from "../../control/links/export/csv.ts"
import { parseUpload } from "../../control/links/import/parseUpload.ts"
import { pieceJson, rowsOfPiece } from "../../control/links/import/pieces.ts"
import type { Link } from "../../control/links/schema.ts"
import { neutraliseFormula, restoreFormula } from "../../control/links/spreadsheetCells.ts"

const link = (fields: Partial<Link>): Link => ({
  id: "lnk_1", domain: "go.example", slug: "s", shortLink: "https://go.example/s", url: "https://example.com/", title: null,
  description: null, ogImageUrl: null, folderId: null, tags: [], redirectType: 302, passQuery: false, openInApp: false,
  openInBrowser: false, utm: null, geoRules: [], deviceRules: [], expiresAt: null, expiredUrl: null, abTest: null,
  hasPassword: false, createdAt: "2030-01-01T00:00:00Z", updatedAt: "2030-01-01T00:00:00Z", ...fields
})

/** The export's CSV of one link, as a file the import reads: header line and the link's line. */
const exported = (value: Link) => csvLine(EXPORT_COLUMNS) + csvLine(exportCells(value))

/** The first row of a file as an import job reads it: parsed, stored in pieces, read back. */
const imported = async (csv: string) => {
  const upload = await Effect.runPromise(parseUpload(csv))
  const [piece] = upload.pieces
  const [row] = rowsOfPiece({ firstRow: piece!.firstRow, json: pieceJson(piece!) }, upload.columns)
  if (row === undefined || !("data" in row)) throw new Error(`no row read from ${JSON.stringify(csv)}`)
  return row.data
}

/** What a spreadsheet would run: a cell starting with one of OWASP's formula characters. */
const FORMULA = /^[=+\-@\t\r]/

describe("formula cells (CSV injection)", () => {
  // [value, the cell the export writes]
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['=HYPERLINK("http://evil.example","x")', `'=HYPERLINK("http://evil.example","x")`],
    ["+1+2", "'+1+2"],
    ["-abc", "'-abc"],
    ["-", "'-"],
    ["@SUM(1)", "'@SUM(1)"],
    ["\t=1", "'\t=1"],
    ["\r=1", "'\r=1"],
    ["'=1", "''=1"],
    ["''-x", "'''-x"],
    ["'plain", "'plain"],
    ["'", "'"],
    ["it's = fine", "it's = fine"],
    ["a=1", "a=1"],
    ["", ""]
  ]

  it.each(cases)("%j is written as %j and read back as itself", (value, cell) => {
    expect(neutraliseFormula(value)).toBe(cell)
    expect(restoreFormula(cell)).toBe(value)
    expect(FORMULA.test(cell)).toBe(false)
  })

  it.each(cases.filter(([value]) => value !== ""))("a title %j round-trips through export and import", async (title) => {
    const row = await imported(exported(link({ title, description: title })))
    expect(row.input).toMatchObject({ title, description: title })
  })

  it.each(["-abc", "-", "_x", "abc"])("a slug %j round-trips through export and import", async (slug) => {
    const csv = exported(link({ slug, shortLink: `https://go.example/${slug}` }))
    expect(csv.split("\r\n")[1].split(",")[2]).toBe(neutraliseFormula(slug))
    expect((await imported(csv)).input.slug).toBe(slug)
  })

  it("writes no cell a spreadsheet would run, in any column", async () => {
    const tag = { id: "tag_1", name: "@SUM(1)", color: null }
    const cells = exportCells(link({ title: "=1+1", description: "-2", slug: "-x", tags: [tag], utm: { source: "=s" } }))
    for (const cell of cells) expect(FORMULA.test(cell), cell).toBe(false)
    // Tag names are inside a JSON list, a cell that starts with `[`: read back by name.
    expect((await imported(csvLine(EXPORT_COLUMNS) + csvLine(cells))).tagNames).toEqual(["@SUM(1)"])
  })

  it("leaves cells of other shorteners' files alone unless they hold the same mark", async () => {
    const row = await imported(["title,long_url", "'Quoted,https://e.com", "'=1,https://e.com"].join("\n"))
    expect(row.input.title).toBe("'Quoted")
    expect((await imported(["long_url,title", "https://e.com,'=1"].join("\n"))).input.title).toBe("=1")
  })
})
