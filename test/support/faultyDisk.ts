import { type FileHandle, open } from "node:fs/promises"
import type { OpenSegmentFile, SegmentFile } from "../../engine/clicks/segmentFile.ts"

/** What one writev call does instead of writing everything. */
export type WriteFault =
  /** Fails before writing a byte. */
  | { readonly kind: "refuse" }
  /** Writes the first `bytes` of the call, then fails (a disk that filled, an I/O error mid-batch). */
  | { readonly kind: "tear"; readonly bytes: number }
  /** Writes the first `bytes` and reports just those, without an error (what libuv returns when the disk fills mid-batch). */
  | { readonly kind: "short"; readonly bytes: number }

const diskError = (syscall: string) => Object.assign(new Error(`EIO: i/o error, ${syscall}`), { code: "EIO", syscall })

/**
 * Real segment files with failures put in front of them on demand, for SpoolSink's file seam.
 * `down` fails every operation; the lists and counters fail the next calls of one kind.
 */
export class FaultyDisk {
  down = false
  readonly writes: Array<WriteFault> = []
  failSyncs = 0
  failTruncates = 0
  failOpens = 0
  readonly calls = { writev: 0, datasync: 0, truncate: 0, open: 0 }

  readonly open: OpenSegmentFile = async (file) => {
    this.calls.open++
    if (this.down || this.failOpens > 0) {
      this.failOpens = Math.max(0, this.failOpens - 1)
      throw diskError("open")
    }
    return this.wrap(await open(file, "a"))
  }

  private wrap(real: FileHandle): SegmentFile {
    return {
      writev: async (buffers) => {
        this.calls.writev++
        if (this.down) throw diskError("write")
        const fault = this.writes.shift()
        if (fault === undefined) return real.writev(buffers)
        if (fault.kind === "refuse") throw diskError("write")
        const part = Buffer.concat(buffers).subarray(0, fault.bytes)
        if (part.length > 0) await real.write(part)
        if (fault.kind === "tear") throw diskError("write")
        return { bytesWritten: part.length }
      },
      datasync: async () => {
        this.calls.datasync++
        if (this.down || this.failSyncs > 0) {
          this.failSyncs = Math.max(0, this.failSyncs - 1)
          throw diskError("fdatasync")
        }
        await real.datasync()
      },
      truncate: async (length) => {
        this.calls.truncate++
        if (this.down || this.failTruncates > 0) {
          this.failTruncates = Math.max(0, this.failTruncates - 1)
          throw diskError("ftruncate")
        }
        await real.truncate(length)
      },
      close: () => real.close()
    }
  }
}
