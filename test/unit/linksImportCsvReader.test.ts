import { parse } from "csv-parse/sync"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { csvReader, CsvSyntaxError } from "../../control/links/import/csvReader.ts"

/** Every record of `text`, read `slice` characters at a time. */
const readAll = (text: string, delimiter: string, slice = 7): Array<Array<string>> => {
  const reader = csvReader(text, delimiter)
  const all: Array<Array<string>> = []
  for (let records = reader.next(slice); records.length > 0; records = reader.next(slice)) all.push(...records)
  return all
}

/** What csv-parse makes of it with the options uploads were read with before: the reference. */
const csvParse = (text: string, delimiter: string) => parse(text, { bom: true, delimiter, relax_column_count: true, skip_empty_lines: true })

const outcome = (read: () => Array<Array<string>>) => {
  try {
    return { records: read() }
  } catch (error) {
    return { error: error instanceof Error }
  }
}

const cell = fc.string({ unit: fc.constantFrom("a", "é", " ", ",", ";", '"', "\n", "\r", "\t", "😀"), maxLength: 6 })
const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`

describe("csvReader", () => {
  it("reads any CSV a writer makes as csv-parse does, whatever the slices", () => {
    fc.assert(fc.property(
      fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
      fc.constantFrom("\n", "\r\n", "\r"),
      fc.constantFrom(",", ";", "\t"),
      fc.boolean(),
      fc.integer({ min: 1, max: 40 }),
      (records, lineEnd, delimiter, bom, slice) => {
        // A writer quotes what needs it; an empty first cell is quoted so no line is empty.
        const needs = (value: string, i: number) => value === "" ? i === 0 : /[",;\t\r\n]/.test(value) || value !== value.trim()
        const text = (bom ? "\uFEFF" : "") + records.map((r) => r.map((v, i) => (needs(v, i) ? quoted(v) : v)).join(delimiter)).join(lineEnd)
        expect(readAll(text, delimiter, slice)).toEqual(csvParse(text, delimiter))
      }
    ), { numRuns: 2_000 })
  })

  it("refuses what csv-parse refuses and reads the rest alike, for any text of CSV's characters, line ends mixed", () => {
    fc.assert(fc.property(
      fc.string({ unit: fc.constantFrom("a", ",", '"', "\n", " ", "\r"), maxLength: 24 }),
      fc.constantFrom("\n", "\r\n", "\r"),
      (raw, lineEnd) => {
        const text = raw.replace(/\n/g, lineEnd)
        expect(outcome(() => readAll(text, ","))).toEqual(outcome(() => csvParse(text, ",")))
      }
    ), { numRuns: 5_000 })
  })

  it.each([
    ["a quote never closed", 'url\n"https://e.com'],
    ["a quote inside an unquoted cell", "url\nhttps://e.com/a\"b"],
    ["text after a closing quote", 'url\n"https://e.com"x']
  ])("refuses %s, saying on which line", (_name, text) => {
    expect(() => readAll(text, ",")).toThrow(CsvSyntaxError)
    expect(() => readAll(text, ",")).toThrow(/line 2/)
  })

  it("reads a very long quoted cell in one record and a file without quotes a line at a time", () => {
    const long = "x".repeat(1_000_000)
    expect(readAll(`url,title\n"${long}",t\nhttps://e.com,u\n`, ",", 10)).toEqual([["url", "title"], [long, "t"], ["https://e.com", "u"]])
  })
})
