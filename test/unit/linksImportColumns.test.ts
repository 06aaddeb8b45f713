import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import { mapColumns, normalizeHeader, toImportRow } from "../../control/links/import/columns.ts"
import { MAX_IMPORT_ROWS, type ParsedUpload, parseUpload } from "../../control/links/import/parseUpload.ts"
import { pieceJson, rowsOfPiece } from "../../control/links/import/pieces.ts"
import { csvField, csvLine } from "../../control/links/export/csv.ts"
import { EXPORT_COLUMNS } from "../../control/links/export/columns.ts"

const row = (headers: ReadonlyArray<string>, cells: ReadonlyArray<string>) => toImportRow(cells, mapColumns(headers))

describe("import columns", () => {
  it.each([
    ["Long URL", "longurl"],
    ["long_url", "longurl"],
    ["longUrl", "longurl"],
    [" Short-Code ", "shortcode"]
  ])("%j is compared as %j", (header, normalized) => {
    expect(normalizeHeader(header)).toBe(normalized)
  })

  it("reads every column of our own export, and ignores what a new link cannot take", () => {
    const columns = mapColumns(EXPORT_COLUMNS)
    expect(columns.ignored).toEqual(["id", "folderId", "hasPassword", "createdAt", "updatedAt"])
  })

  it("keeps the first of two columns with one meaning", () => {
    expect(mapColumns(["url", "long_url"])).toEqual({ targets: ["url", undefined], ignored: ["long_url"] })
  })

  it.each([
    {
      name: "our export: JSON cells, booleans, numbers",
      headers: ["domain", "slug", "url", "tags", "redirectType", "passQuery", "geoRules", "utm", "expiresAt"],
      cells: ["Go.Example", "s", "https://e.com", '[{"id":"tag_1","name":"News","color":"blue"}]', "301", "true", '[{"country":"FR","url":"https://e.fr"}]', '{"source":"x"}', "2030-01-01T00:00:00Z"],
      expected: {
        input: { slug: "s", url: "https://e.com", redirectType: 301, passQuery: true, geoRules: [{ country: "FR", url: "https://e.fr" }], utm: { source: "x" }, expiresAt: "2030-01-01T00:00:00Z" },
        tagNames: ["News"],
        domain: "go.example"
      }
    },
    {
      name: "Shlink: short code, | tags, validUntil with an offset, forwardQuery",
      headers: ["shortCode", "longUrl", "tags", "validUntil", "forwardQuery", "visits"],
      cells: ["abc", "https://e.com", "a|b|a", "2030-01-01T02:00:00+02:00", "no", "9"],
      expected: { input: { slug: "abc", url: "https://e.com", expiresAt: "2030-01-01T00:00:00Z", passQuery: false }, tagNames: ["a", "b"] }
    },
    {
      name: "Bitly: the back-half and domain from the short link",
      headers: ["title", "long_url", "link"],
      cells: ["T", "https://e.com", "https://bit.ly/3xYz"],
      expected: { input: { title: "T", url: "https://e.com", slug: "3xYz" }, domain: "bit.ly" }
    },
    {
      name: "Dub: key and utm_* columns, a short link without scheme",
      headers: ["key", "url", "utm_source", "utm_campaign", "shortLink"],
      cells: ["k", "https://e.com", "news", "spring", "dub.sh/other"],
      expected: { input: { slug: "k", url: "https://e.com", utm: { source: "news", campaign: "spring" } }, domain: "dub.sh" }
    },
    {
      name: "empty cells leave fields out; bad values are left for validation",
      headers: ["url", "slug", "title", "redirectType", "passQuery", "abTest"],
      cells: ["https://e.com", "", "  ", "temporary", "maybe", "{not json"],
      expected: { input: { url: "https://e.com", redirectType: "temporary", passQuery: "maybe", abTest: "{not json" } }
    }
  ])("$name", ({ headers, cells, expected }) => {
    expect(row(headers, cells)).toEqual(expected)
  })
})

describe("parseUpload", () => {
  const parsed = (text: string) => Effect.runPromise(Effect.result(parseUpload(text)))
  const firstRows = (upload: ParsedUpload) => rowsOfPiece({ firstRow: 0, json: pieceJson(upload.pieces[0]!) }, upload.columns)

  it.each([
    ["a header and rows, CRLF, a BOM, quoted cells", "\uFEFFurl,title\r\nhttps://e.com,\"a, \"\"b\"\"\"\r\n\r\nhttps://f.com,\r\n", 2],
    ["semicolons", "url;title\nhttps://e.com;x\n", 1],
    ["tabs", "url\ttitle\nhttps://e.com\tx\n", 1]
  ])("reads %s", async (_name, text, count) => {
    const upload = Result.getOrThrow(await parsed(text))
    expect(upload.totalRows).toBe(count)
    expect(firstRows(upload)[0]).toMatchObject({ row: 2, data: { input: { url: "https://e.com" } } })
  })

  it.each([
    ["", "invalid"],
    ["url\n", "invalid"],
    ["title\nx\n", "invalid"],
    ["url\n\"open", "unreadable"],
    [`url\n${"https://e.com\n".repeat(MAX_IMPORT_ROWS + 1)}`, "invalid"]
  ])("refuses %j as %s", async (text, kind) => {
    expect(await parsed(text)).toMatchObject({ failure: { kind } })
  })

  it("takes exactly the largest file allowed", async () => {
    expect(Result.getOrThrow(await parsed(`url\n${"https://e.com\n".repeat(MAX_IMPORT_ROWS)}`)).totalRows).toBe(MAX_IMPORT_ROWS)
  })
})

describe("CSV fields", () => {
  it.each([
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    [" padded", '" padded"'],
    ["", ""]
  ])("%j is written %j", (value, written) => {
    expect(csvField(value)).toBe(written)
  })

  it("ends lines with CRLF", () => {
    expect(csvLine(["a", "b,c"])).toBe('a,"b,c"\r\n')
  })
})
