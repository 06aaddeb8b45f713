/**
 * CSV as RFC 4180 writes it, read a slice at a time from text already in memory: `"` quotes a
 * cell (`""` is a quote inside it), a cell may span lines inside quotes, lines end with the first
 * line end the file uses (`\r\n`, `\n` or `\r`; another kind inside a cell is part of it), a
 * leading BOM is dropped, lines of no characters are skipped, and records may have any number of
 * cells. A quote inside an unquoted cell, anything but a delimiter or line end after a closing
 * quote, and a quote never closed make the file unreadable: csv-parse's rules for the options
 * uploads used to be read with, at several times its speed (a line without quotes is one split),
 * so a 64 MiB upload is read in well under a second.
 */

/** A file that is not CSV by the rules above; the message says where, for the client. */
export class CsvSyntaxError extends Error {}

export interface CsvReader {
  /**
   * The next records, at least `chars` characters of the text's worth unless it ends first (a
   * record is never split, so one record longer than `chars` comes whole); an empty array once
   * the text is read. Throws CsvSyntaxError.
   */
  readonly next: (chars: number) => Array<Array<string>>
}

/**
 * The next `needle` at or after a position that only moves forward: each search starts where the
 * last one stopped, so a file with none left (no quote in its rest, say) is not scanned again.
 */
const finder = (text: string, needle: string) => {
  let found = -1
  let from = -1
  return (i: number): number => {
    if (i > found || from < 0 || i < from) {
      const at = text.indexOf(needle, i)
      found = at < 0 ? Infinity : at
      from = i
    }
    return found
  }
}

export const csvReader = (source: string, delimiter: string): CsvReader => {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source
  const end = text.length
  const nextQuote = finder(text, '"')
  const nextDelimiter = finder(text, delimiter)
  const nextCr = finder(text, "\r")
  const nextLf = finder(text, "\n")
  let pos = 0
  let line = 1
  let lineEnd: string | undefined
  let nextLineEnd = (i: number) => Math.min(nextCr(i), nextLf(i))

  const fail = (what: string): never => {
    throw new CsvSyntaxError(`${what} (line ${line})`)
  }

  /** The length of the line end at `i` (0: none): the file's own once known, else the first seen decides. */
  const lineEndAt = (i: number): number => {
    if (lineEnd !== undefined) return text.startsWith(lineEnd, i) ? lineEnd.length : 0
    const c = text.charCodeAt(i)
    if (c !== 13 && c !== 10) return 0
    lineEnd = c === 13 ? (text.charCodeAt(i + 1) === 10 ? "\r\n" : "\r") : "\n"
    nextLineEnd = lineEnd === "\n" ? nextLf : finder(text, lineEnd)
    return lineEnd.length
  }

  const countLines = (from: number, to: number) => {
    for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) line++
  }

  /** A quoted cell starting at `pos` (on its quote); leaves `pos` after the closing quote. */
  const quotedCell = (): string => {
    let value = ""
    let from = pos + 1
    for (;;) {
      const quote = nextQuote(from)
      if (quote === Infinity) return fail("A quoted cell is not closed")
      if (text.charCodeAt(quote + 1) === 34) {
        value += text.slice(from, quote + 1)
        from = quote + 2
        continue
      }
      value += text.slice(from, quote)
      countLines(pos, quote)
      pos = quote + 1
      return value
    }
  }

  /** After a cell: true when its record goes on, false when it ended (a line end, or the text's end). */
  const afterCell = (): boolean => {
    if (pos >= end) return false
    if (text.startsWith(delimiter, pos)) {
      pos += delimiter.length
      return true
    }
    const eol = lineEndAt(pos)
    if (eol > 0) {
      pos += eol
      line++
      return false
    }
    return fail(`A closing quote is followed by ${JSON.stringify(text[pos])} instead of a delimiter or a line end`)
  }

  /** One record, cell by cell: the way for lines with quotes and for the first line (which sets the line end). */
  const slowRecord = (): Array<string> => {
    const cells: Array<string> = []
    for (;;) {
      if (text.charCodeAt(pos) === 34) {
        cells.push(quotedCell())
        if (afterCell()) continue
        return cells
      }
      const stop = Math.min(nextDelimiter(pos), nextLineEnd(pos), end)
      if (nextQuote(pos) < stop) return fail(`A quote inside an unquoted cell (${JSON.stringify(text.slice(pos, nextQuote(pos) + 1))})`)
      cells.push(text.slice(pos, stop))
      pos = stop
      if (pos >= end) return cells
      if (text.startsWith(delimiter, pos)) {
        pos += delimiter.length
        continue
      }
      pos += lineEndAt(pos)
      line++
      return cells
    }
  }

  const record = (): Array<string> | undefined => {
    if (lineEnd !== undefined) {
      const stop = Math.min(nextLineEnd(pos), end)
      // Most lines have no quote: their cells are the line split at the delimiter.
      if (nextQuote(pos) >= stop) {
        const cells = text.slice(pos, stop)
        pos = stop === end ? end : stop + lineEnd.length
        line++
        return cells === "" ? undefined : cells.split(delimiter)
      }
    }
    const eol = lineEndAt(pos)
    if (eol > 0) {
      pos += eol
      line++
      return undefined
    }
    return slowRecord()
  }

  return {
    next: (chars) => {
      const records: Array<Array<string>> = []
      const stop = pos + chars
      // Empty lines give no record: read on, so that no records means the end of the text.
      while (pos < end && (pos < stop || records.length === 0)) {
        const cells = record()
        if (cells !== undefined) records.push(cells)
      }
      return records
    }
  }
}
