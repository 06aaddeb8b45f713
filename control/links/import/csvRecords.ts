import { Parser } from "csv-parse"
import { setImmediate } from "node:timers/promises"

/** Text handed to the parser at a time: a few milliseconds of work, then the event loop runs again. */
export const SLICE_CHARS = 256 * 1024

/** How an uploaded file is read: a BOM dropped, any number of cells a line, empty lines skipped. */
export const csvOptions = (delimiter: string) => ({ bom: true, delimiter, relax_column_count: true, skip_empty_lines: true })

/**
 * The records of `text`, a slice of SLICE_CHARS at a time, each slice's records as one array:
 * control and the engine share one process on the embedded default, and a 64 MiB file parsed in
 * one call would hold its event loop for seconds. Rejects with csv-parse's error on text that is
 * not CSV. The caller may stop early (`return` from its loop).
 */
export async function* csvRecords(text: string, delimiter: string): AsyncGenerator<Array<Array<string>>> {
  const parser = new Parser(csvOptions(delimiter))
  const failed = new Promise<never>((_, reject) => parser.on("error", reject))
  failed.catch(() => {})
  const drain = () => {
    const records: Array<Array<string>> = []
    for (let record = parser.read(); record !== null; record = parser.read()) records.push(record)
    return records
  }
  const check = () => {
    if (parser.errored !== null) throw parser.errored
  }
  try {
    for (let start = 0; start < text.length; start += SLICE_CHARS) {
      parser.write(text.slice(start, start + SLICE_CHARS))
      check()
      yield drain()
      // Lets the write finish (a full buffer defers it to the next read) and other work run.
      await setImmediate()
      check()
    }
    await Promise.race([failed, new Promise<void>((resolve) => parser.end(resolve))])
    check()
    yield drain()
  } finally {
    parser.destroy()
  }
}
