import { createHash } from "node:crypto"
import { createReadStream } from "node:fs"
import * as path from "node:path"
import { connect, Events, type JetStreamManager, type NatsConnection, type ObjectStore } from "nats"
import { natsServer } from "../bus/natsServer.ts"

/**
 * The JetStream object store that carries click files from engines to controls when
 * RICOCHET_CLICKS_TRANSPORT is `bucket` (docs/architecture.md#scale-out). An object's name is the
 * file's path under a clicks directory, so `date=…/hour=…/{engineId}-{seq}.parquet` from an
 * engine, and compaction's merged files and manifests beside them: a control's mirror is the
 * clicks directory a single machine would have.
 */
export interface ClickBucketOptions {
  readonly natsUrl: string
  readonly bucket: string
  readonly replicas: number
}

/** The object store name of a file under `root`, or undefined for a file outside the layout. */
export const objectNameOf = (root: string, file: string): string | undefined => {
  const name = path.relative(root, file).split(path.sep).join("/")
  return isClickObjectName(name) ? name : undefined
}

/**
 * Names a mirror accepts: a date directory, optionally an hour directory, and a plain file name.
 * Anything else (a `..`, an absolute path) is never written to disk, whoever put it.
 */
const OBJECT_NAME = /^date=\d{4}-\d{2}-\d{2}\/(hour=\d{2}\/)?[A-Za-z0-9_=-][A-Za-z0-9_.=-]{0,200}$/
export const isClickObjectName = (name: string): boolean => OBJECT_NAME.test(name) && !name.split("/").includes("..") && !name.endsWith(".tmp")

/** The file a mirror under `root` keeps for an object. */
export const fileOfObject = (root: string, name: string): string => path.join(root, ...name.split("/"))

const DIGEST_PREFIX = "SHA-256="

/** A digest as the object store writes it: SHA-256 of the content, base64url (padded or not). */
export const sameDigest = (objectDigest: string, sha256: Buffer): boolean =>
  objectDigest.startsWith(DIGEST_PREFIX) && Buffer.from(objectDigest.slice(DIGEST_PREFIX.length), "base64url").equals(sha256)

/** SHA-256 of a file's content; undefined when there is no such file. */
export const fileSha256 = async (file: string): Promise<Buffer | undefined> => {
  const hash = createHash("sha256")
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
  return hash.digest()
}

/** The stream behind an object store bucket, and the subject of an object's metadata (nats.js's layout). */
export const streamOfBucket = (bucket: string) => `OBJ_${bucket}`
export const metaSubjectOf = (bucket: string, name: string) => {
  const encoded = Buffer.from(name).toString("base64url")
  return `$O.${bucket}.M.${encoded}${"=".repeat((4 - (encoded.length % 4)) % 4)}`
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface ClickBucketConnection {
  /** The bucket, once NATS has been reached and the bucket opened (or created); waits until then. */
  readonly bucket: () => Promise<ObjectStore>
  /** JetStream's management API on the same connection, once the bucket is open. */
  readonly manager: () => Promise<JetStreamManager>
  /** Called at each reconnection to NATS (a watch may have missed what happened meanwhile). */
  readonly onReconnect: (listener: () => void) => void
  readonly close: () => Promise<void>
}

/**
 * A connection to NATS for the click bucket, made in the background: a server away at start
 * (or later) delays the files, never the process that sends or mirrors them. Reconnects forever;
 * the failure to reach it is logged once, and its return.
 */
export const clickBucketConnection = (options: ClickBucketOptions, who: string): ClickBucketConnection => {
  const { servers, credentials, shown } = natsServer(options.natsUrl)
  let closed = false
  let nc: NatsConnection | undefined
  const reconnectListeners = new Set<() => void>()
  const followStatus = async (conn: NatsConnection) => {
    for await (const status of conn.status()) {
      if (status.type === Events.Reconnect) for (const listener of reconnectListeners) listener()
    }
  }
  let resolveBucket!: (store: ObjectStore) => void
  let rejectBucket!: (error: Error) => void
  const ready = new Promise<ObjectStore>((resolve, reject) => {
    resolveBucket = resolve
    rejectBucket = reject
  })
  // Nobody need wait for a bucket once closed; nor is an unawaited rejection an error.
  ready.catch(() => {})
  const open = async () => {
    let failing = false
    for (let failures = 0; !closed; failures++) {
      try {
        if (nc === undefined) {
          nc = await connect({ servers, ...credentials, name: who, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 2_000 })
          void followStatus(nc)
        }
        // Closed while connecting: close() found no connection to close.
        if (closed) return void (await nc.close().catch(() => {}))
        // Creates the bucket the first time; its replicas are fixed then (a stream's are changed by an operator).
        const store = await nc.jetstream({ timeout: 10_000 }).views.os(options.bucket, { replicas: options.replicas })
        if (failing) console.log(`${who}: click bucket ${options.bucket} reached on NATS at ${shown}`)
        resolveBucket(store)
        return
      } catch (error) {
        if (!failing) console.error(`${who}: cannot open the click bucket ${options.bucket} on NATS at ${shown} (${(error as Error).message}); retrying`)
        failing = true
        await sleep(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)))
      }
    }
  }
  void open()
  return {
    bucket: () => ready,
    manager: async () => {
      await ready
      return nc!.jetstreamManager()
    },
    onReconnect: (listener) => void reconnectListeners.add(listener),
    close: async () => {
      closed = true
      rejectBucket(new Error("click bucket connection closed"))
      await nc?.close().catch(() => {})
    }
  }
}
