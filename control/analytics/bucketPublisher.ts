import { createReadStream } from "node:fs"
import * as path from "node:path"
import { Readable } from "node:stream"
import type { ObjectStore } from "nats"
import { objectNameOf } from "../../shared/clicks/clickBucket.ts"

/**
 * How compaction's output reaches the other controls with the bucket transport: each file it
 * writes is put into the click bucket (acknowledged) before the local switch that makes it count,
 * and each file it removes is deleted from the bucket before it is removed here. Files outside
 * the layout (temporary ones) are this control's alone.
 */
export interface ClickFilePublisher {
  /** Puts `file`'s content under the object name of `as` (its place in the clicks directory). */
  readonly put: (file: string, as?: string) => Promise<void>
  readonly remove: (file: string) => Promise<void>
  /** Deletes every object of one date directory (retention). */
  readonly removeDate: (dateDir: string) => Promise<void>
}

export const bucketPublisher = (store: ObjectStore, root: string): ClickFilePublisher => ({
  put: async (file, as = file) => {
    const name = objectNameOf(root, as)
    if (name === undefined) throw new Error(`${as} is not a click file under ${root}`)
    await store.put({ name }, Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>)
  },
  remove: async (file) => {
    const name = objectNameOf(root, file)
    if (name !== undefined) await store.delete(name)
  },
  removeDate: async (dateDir) => {
    const prefix = `${path.basename(dateDir)}/`
    for (const info of await store.list()) if (info.name.startsWith(prefix)) await store.delete(info.name)
  }
})
