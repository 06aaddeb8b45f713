import { type Cause, Context, Effect, Layer, Queue } from "effect"

/** Streams one workspace may hold open at once (tabs of its people), per control process. */
export const STREAMS_PER_WORKSPACE = 10
/** Streams one control process holds open at once, all workspaces together. */
export const STREAMS_PER_PROCESS = 500
/** Events waiting for one slow stream: past this the oldest go (a live view, not a log). */
const BACKLOG = 256

export interface LiveStream {
  readonly workspaceId: string
  /** The session or key that opened it: closed when that one signs out. */
  readonly credentialId: string
  readonly queue: Queue.Queue<string, Cause.Done>
}

/**
 * This process's open live streams (GET /v1/events), by workspace. An event is handed only to the
 * streams of its own workspace; each stream has a bounded backlog of its own, so a slow reader
 * loses its oldest events and slows nobody else.
 */
export class LiveHub extends Context.Service<LiveHub, {
  /** A new stream, or why not: the workspace's or the process's bound is reached. */
  readonly open: (workspaceId: string, credentialId: string) => Effect.Effect<LiveStream | "workspace" | "process">
  readonly close: (stream: LiveStream) => Effect.Effect<void>
  /** Ends every stream of a session or key (it signed out, or was revoked). */
  readonly closeCredential: (credentialId: string) => void
  readonly publish: (workspaceId: string, event: string) => void
  /** The workspaces with at least one stream open. */
  readonly workspaces: () => ReadonlyArray<string>
}>()("ricochet/LiveHub") {}

export const LiveHubLayer = Layer.sync(LiveHub)(() => {
  const streams = new Map<string, Set<LiveStream>>()
  let total = 0
  const remove = (stream: LiveStream) => {
    const set = streams.get(stream.workspaceId)
    if (set?.delete(stream)) {
      total--
      if (set.size === 0) streams.delete(stream.workspaceId)
    }
    Queue.endUnsafe(stream.queue)
  }
  return LiveHub.of({
    open: (workspaceId, credentialId) =>
      Effect.gen(function*() {
        const set = streams.get(workspaceId)
        if ((set?.size ?? 0) >= STREAMS_PER_WORKSPACE) return "workspace" as const
        if (total >= STREAMS_PER_PROCESS) return "process" as const
        const stream: LiveStream = { workspaceId, credentialId, queue: yield* Queue.sliding<string, Cause.Done>(BACKLOG) }
        if (set === undefined) streams.set(workspaceId, new Set([stream]))
        else set.add(stream)
        total++
        return stream
      }),
    close: (stream) => Effect.sync(() => remove(stream)),
    closeCredential: (credentialId) => {
      for (const set of [...streams.values()]) for (const stream of [...set]) if (stream.credentialId === credentialId) remove(stream)
    },
    publish: (workspaceId, event) => {
      for (const stream of streams.get(workspaceId) ?? []) Queue.offerUnsafe(stream.queue, event)
    },
    workspaces: () => [...streams.keys()]
  })
})
