import { createHash, randomBytes } from "node:crypto"
import { createWriteStream } from "node:fs"
import { mkdir, readFile, rename, rm, stat } from "node:fs/promises"
import * as path from "node:path"
import { Readable, Transform } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { ObjectInfo, ObjectStore } from "nats"
import { fileOfObject, fileSha256, isClickObjectName, sameDigest } from "../../shared/clicks/clickBucket.ts"
import { DAY_MANIFEST, type DayManifest, type HourManifest, MANIFEST } from "../../shared/clicks/files.ts"
import { rollupOf } from "./rollup.ts"

/**
 * A control's copy of the click bucket (RICOCHET_CLICKS_TRANSPORT=bucket): every object as the
 * file of the same name under the control's own clicks directory, which DuckDB, compaction and
 * the webhook feed read as they read a directory engines write into.
 *
 * Objects are applied one at a time, in the bucket's order (a watch delivers them by the sequence
 * of their last change, history first). A file is downloaded under a temporary name, its SHA-256
 * checked against the object's digest, and renamed into place; a deleted object's file is removed.
 *
 * A day (or hour) switches atomically as it does in one directory: compaction puts the merged
 * file before the manifest that names it, and deletes the files it replaced only after that
 * manifest; readers take what the manifest names plus the files it does not replace
 * (shared/clicks/files.ts). The mirror keeps that order, and more: a manifest is renamed into
 * place only once every file it names (a day's rollups too) is here, downloaded first if the
 * watch has not brought it yet (a manifest put again after the watch listed it, or a watch that
 * restarted), so no query ever sees a replaced file gone and its merged file not yet there.
 */
export interface MirrorState {
  /** Digests of the files this mirror wrote or found in place, by object name: a re-listed object is not read again. */
  readonly applied: Map<string, string>
  /** Objects applied (downloaded or removed) since start. */
  downloads: number
  removals: number
  /** The watch has delivered the bucket's history, and follows its changes live. */
  following: boolean
}

export const newMirrorState = (): MirrorState => ({ applied: new Map(), downloads: 0, removals: 0, following: false })

const isManifestName = (name: string) => name.endsWith(`/${MANIFEST}`) || name.endsWith(`/${DAY_MANIFEST}`)

/** The objects a manifest names, which must be in place before it is. */
const namedBy = (name: string, content: string): Array<string> => {
  const dir = name.slice(0, name.lastIndexOf("/"))
  if (name.endsWith(`/${MANIFEST}`)) return (JSON.parse(content) as HourManifest).merged.map((file) => `${dir}/${file}`)
  const day = JSON.parse(content) as DayManifest
  return day.merged.flatMap((file) => {
    const rollup = rollupOf(file)
    return rollup === null ? [`${dir}/${file}`] : [`${dir}/${file}`, `${dir}/${rollup}`]
  })
}

/**
 * Whether the file in place already holds the object. A Parquet file's name is never given other
 * bytes (an engine's is put again only with the same bytes; compaction names its files by the
 * time it wrote them), and a file is only ever renamed into place whole: the same size is the same
 * file, so a restart does not read every file again. Manifests, rewritten under one name, are hashed.
 */
const inPlace = async (file: string, info: ObjectInfo, state: MirrorState): Promise<boolean> => {
  const size = await stat(file).then((s) => s.size, () => undefined)
  if (size === undefined || size !== info.size) return false
  if (state.applied.get(info.name) === info.digest || !isManifestName(info.name)) {
    state.applied.set(info.name, info.digest)
    return true
  }
  const sha = await fileSha256(file)
  if (sha === undefined || !sameDigest(info.digest, sha)) return false
  state.applied.set(info.name, info.digest)
  return true
}

/**
 * Downloads the object's current content to its file. False when the object is gone (deleted
 * since it was listed: its deletion comes later in the watch).
 */
const download = async (store: ObjectStore, root: string, name: string, state: MirrorState): Promise<boolean> => {
  const result = await store.get(name)
  if (result === null) return false
  const target = fileOfObject(root, name)
  await mkdir(path.dirname(target), { recursive: true })
  const temporary = `${target}.${randomBytes(6).toString("hex")}.tmp`
  try {
    const hash = createHash("sha256")
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk)
        done(null, chunk)
      }
    })
    await pipeline(Readable.fromWeb(result.data as import("node:stream/web").ReadableStream<Uint8Array>), hashing, createWriteStream(temporary))
    const failed = await result.error
    if (failed) throw failed
    if (!sameDigest(result.info.digest, hash.digest())) throw new Error(`click object ${name}: content does not match its digest ${result.info.digest}`)
    if (isManifestName(name)) {
      for (const named of namedBy(name, await readFile(temporary, "utf8"))) await ensure(store, root, named, state)
    }
    await rename(temporary, target)
    state.applied.set(name, result.info.digest)
    state.downloads++
    return true
  } finally {
    await rm(temporary, { force: true })
  }
}

/** A file a manifest names: downloaded now unless already in place. */
const ensure = async (store: ObjectStore, root: string, name: string, state: MirrorState): Promise<void> => {
  if (!isClickObjectName(name)) return
  const info = await store.info(name)
  if (info === null || info.deleted) return
  if (await inPlace(fileOfObject(root, name), info, state)) return
  await download(store, root, name, state)
}

/** One change of the bucket onto the directory. */
export const applyObject = async (store: ObjectStore, root: string, info: ObjectInfo, state: MirrorState): Promise<void> => {
  if (!isClickObjectName(info.name)) {
    console.warn(`click mirror: ignoring object ${JSON.stringify(info.name)}, which is not a click file name`)
    return
  }
  const target = fileOfObject(root, info.name)
  if (info.deleted) {
    if (!state.applied.delete(info.name) && !(await stat(target).then(() => true, () => false))) return
    await rm(target, { force: true })
    state.removals++
    return
  }
  if (await inPlace(target, info, state)) return
  await download(store, root, info.name, state)
}
