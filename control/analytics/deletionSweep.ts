import type { JetStreamManager, ObjectStore } from "nats"
import { metaSubjectOf, streamOfBucket } from "../../shared/clicks/clickBucket.ts"

/**
 * A deleted object leaves a marker in the bucket's stream (its metadata, flagged deleted), and a
 * mirror that starts reads every marker with the history. Compaction deletes about one file per
 * engine roll, so markers would pile up by the million; this purges those older than
 * `olderThanMs`, by which time every running mirror has removed its copy. A control that was down
 * longer keeps the files it missed the deletion of on disk, where they never count: each is a
 * file a manifest replaced, or a merged file no manifest names any more (shared/clicks/files.ts).
 * Only the marker is purged (the purge stops at its sequence): an object put again since stays.
 */
export const sweepDeletions = async (store: ObjectStore, manager: JetStreamManager, bucket: string, olderThanMs: number, nowMs: number): Promise<number> => {
  const deleted: Array<string> = []
  const watch = await store.watch({ includeHistory: true })
  try {
    for await (const info of watch) {
      if (info === null) break
      if (info.deleted) deleted.push(info.name)
    }
  } finally {
    watch.stop()
  }
  let purged = 0
  for (const name of deleted) {
    const subject = metaSubjectOf(bucket, name)
    const marker = await manager.streams.getMessage(streamOfBucket(bucket), { last_by_subj: subject }).catch(() => undefined)
    if (marker === undefined || nowMs - marker.time.getTime() < olderThanMs) continue
    if (!(JSON.parse(new TextDecoder().decode(marker.data)) as { deleted?: boolean }).deleted) continue
    await manager.streams.purge(streamOfBucket(bucket), { filter: subject, seq: marker.seq + 1 })
    purged++
  }
  return purged
}
