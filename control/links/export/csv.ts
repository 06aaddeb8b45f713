/** RFC 4180 CSV: fields quoted when they must be, quotes doubled, CRLF line ends. */

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/

export const csvField = (value: string): string => (NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value)

export const csvLine = (fields: ReadonlyArray<string>): string => `${fields.map(csvField).join(",")}\r\n`
