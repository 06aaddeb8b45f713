import { setImmediate } from "node:timers/promises"
import { csvReader } from "./csvReader.ts"

/** Text read at a time: a few milliseconds of work, then the event loop runs again. */
export const SLICE_CHARS = 256 * 1024

/**
 * The records of `text`, SLICE_CHARS at a time, each slice's records as one array: control and
 * the engine share one process on the embedded default, and a 64 MiB file read in one go would
 * hold its event loop for a second or more. Rejects with CsvSyntaxError on text that is not CSV.
 */
export async function* csvRecords(text: string, delimiter: string): AsyncGenerator<Array<Array<string>>> {
  const reader = csvReader(text, delimiter)
  for (let records = reader.next(SLICE_CHARS); records.length > 0; records = reader.next(SLICE_CHARS)) {
    yield records
    await setImmediate()
  }
}
