import type { DuckDBConnection } from "@duckdb/node-api"
import { Packr } from "msgpackr"
import { existsSync } from "node:fs"
import { readFile, unlink } from "node:fs/promises"
import * as path from "node:path"
import type { ClickRecord } from "../../shared/clicks/click.ts"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { partitionOf } from "../../shared/clicks/parquet.ts"
import type { SegmentJob } from "./spoolSink.ts"

/**
 * Spool segments written before the spool became CSV: `[u32 length][msgpack batch]` frames.
 * Only read, so that a segment an older engine left behind at a crash is still turned into
 * Parquet after an upgrade; nothing writes this format any more.
 */
export const LEGACY_SEGMENT_SUFFIX = ".spool"

const packr = new Packr({ useRecords: true, mapsAsObjects: true })
const FRAME_HEADER = 4

/** The clicks of a legacy segment's whole frames; a torn last frame is ignored. */
export const readLegacyFrames = (bytes: Buffer): Array<ClickRecord> => {
  const clicks: Array<ClickRecord> = []
  let offset = 0
  while (offset + FRAME_HEADER <= bytes.length) {
    const length = bytes.readUInt32LE(offset)
    if (offset + FRAME_HEADER + length > bytes.length) break
    const batch = packr.unpack(bytes.subarray(offset + FRAME_HEADER, offset + FRAME_HEADER + length)) as Array<ClickRecord>
    for (const click of batch) clicks.push(click)
    offset += FRAME_HEADER + length
  }
  return clicks
}

/** As convertSegment, for a legacy segment: one Parquet file per hour, named after the segment. */
export const convertLegacySegment = async (duck: DuckDBConnection, job: SegmentJob): Promise<number> => {
  const clicks = readLegacyFrames(await readFile(job.file))
  const byHour = new Map<string, Array<ClickRecord>>()
  for (const click of clicks) {
    const { dir } = partitionOf(click.timestamp)
    let list = byHour.get(dir)
    if (list === undefined) byHour.set(dir, (list = []))
    list.push(click)
  }
  for (const [dir, list] of byHour) {
    const target = path.join(job.clicksDir, dir, `${job.engineId}-${job.seq}.parquet`)
    if (existsSync(target)) continue
    await writeClicksParquet(duck, list, target)
  }
  await unlink(job.file)
  return clicks.length
}
