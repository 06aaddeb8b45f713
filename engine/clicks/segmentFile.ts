import { open } from "node:fs/promises"

/**
 * What the spool sink does with an open segment. Node's FileHandle is one; tests put failures
 * (a refused write, a write cut short, a failed fsync) in front of it.
 */
export interface SegmentFile {
  writev(buffers: Array<Buffer>): Promise<{ readonly bytesWritten: number }>
  datasync(): Promise<void>
  truncate(length: number): Promise<void>
  close(): Promise<void>
}

/** Creates (or opens) a segment for appending. */
export type OpenSegmentFile = (file: string) => Promise<SegmentFile>

export const openSegmentFile: OpenSegmentFile = (file) => open(file, "a")

/**
 * Writes every byte of `buffers`. A writev can write only part of them without an error (libuv
 * returns the bytes written when the disk fills mid-batch); the rest is written again, and a
 * write that makes no progress is an error, so a short write is never taken for a whole one.
 */
export const writeAll = async (file: SegmentFile, buffers: ReadonlyArray<Buffer>): Promise<void> => {
  let rest = [...buffers]
  while (rest.length > 0) {
    const { bytesWritten } = await file.writev(rest)
    if (bytesWritten <= 0) throw new Error("spool write made no progress")
    rest = after(rest, bytesWritten)
  }
}

/** The bytes of `buffers` after the first `skip`, without copying. */
const after = (buffers: ReadonlyArray<Buffer>, skip: number): Array<Buffer> => {
  let i = 0
  while (i < buffers.length && skip >= buffers[i].length) skip -= buffers[i++].length
  if (i === buffers.length) return []
  return [buffers[i].subarray(skip), ...buffers.slice(i + 1)]
}
