import { connect, type Socket } from "node:net"
import { performance } from "node:perf_hooks"
import { ProtocolExchange } from "./protocolExchange.ts"

/**
 * Finds connections to PostgreSQL that wait for an answer that does not come, and destroys them.
 *
 * postgres.js has no query timeout of its own, and a hung server or network (bytes accepted,
 * nothing answered) leaves its connection waiting forever: the pool fills with such connections
 * and never recovers, whatever timeout the caller puts around a query. TCP keepalive does not
 * help while the peer's kernel (or a proxy in between) still acknowledges. So every socket the
 * pool opens comes from here, and a socket that owes an answer and has read nothing for `stallMs`
 * is destroyed: postgres.js fails its queries and opens a new connection next time.
 *
 * Whether a socket owes an answer is read from the protocol messages it carries (see
 * protocolExchange.ts). Under TLS they are encrypted, and the socket's byte counters are looked
 * at instead (`look`): bytes written after the last read mean a request waits. A look that finds
 * a reply and a newer request at once cannot tell them apart and counts the request as answered,
 * so a TLS connection that hangs right after a reply is noticed on its next request.
 */

/** What is remembered of one socket between two looks. */
export interface Progress {
  readonly bytesRead: number
  /** bytesWritten as of the last look that saw bytesRead move: more than this is unanswered. */
  readonly writtenAtLastRead: number
  /** When a look first found unanswered bytes (performance.now() ms), if any are. */
  readonly waitingSince: number | undefined
}

export interface Counters {
  readonly bytesRead: number
  readonly bytesWritten: number
}

export const NEW_SOCKET: Progress = { bytesRead: 0, writtenAtLastRead: 0, waitingSince: undefined }

/** One look at a socket's counters: its progress after it, and whether it counts as hung. */
export const look = (previous: Progress, counters: Counters, nowMs: number, stallMs: number): { progress: Progress; hung: boolean } => {
  if (counters.bytesRead !== previous.bytesRead) {
    return { progress: { bytesRead: counters.bytesRead, writtenAtLastRead: counters.bytesWritten, waitingSince: undefined }, hung: false }
  }
  if (counters.bytesWritten <= previous.writtenAtLastRead) return { progress: previous, hung: false }
  const waitingSince = previous.waitingSince ?? nowMs
  return { progress: { ...previous, waitingSince }, hung: nowMs - waitingSince >= stallMs }
}

/** The subset of postgres.js's parsed options a socket needs. */
export interface SocketTarget {
  readonly host: ReadonlyArray<string>
  readonly port: ReadonlyArray<number>
  readonly path?: string | false
}

export interface StalledSockets {
  /**
   * postgres.js's `socket` option. It returns the socket while it still connects (writes are
   * queued until then), so a refused or failed connect reaches postgres.js as the socket's own
   * error and close, as with the sockets it makes itself.
   */
  readonly socket: (target: SocketTarget) => Socket
  /** Sockets being watched (for tests and status). */
  readonly size: () => number
}

export const stalledSocketError = (stallMs: number): Error =>
  Object.assign(new Error(`PostgreSQL sent nothing for ${stallMs / 1000} s while a query waited; the connection was dropped`), {
    code: "ETIMEDOUT"
  })

interface Watched {
  readonly exchange: ProtocolExchange
  /** Byte counters as of the last look, for a TLS connection. */
  counted: Progress
}

export const watchStalledSockets = (stallMs: number): StalledSockets => {
  const watched = new Map<Socket, Watched>()
  const everyMs = Math.min(1_000, Math.max(50, stallMs / 4))
  let timer: NodeJS.Timeout | undefined
  let lastLook = 0
  // Several hosts in the URL are tried in turn, as postgres.js does with its own sockets.
  let nextHost = 0

  const lookAll = () => {
    const now = performance.now()
    // A look that comes late (the event loop was blocked) finds replies not yet read: it judges
    // nothing, and the waits start over.
    const late = now - lastLook > everyMs * 3
    lastLook = now
    for (const [socket, state] of watched) {
      // postgres.js drops every listener of the plain socket when it starts TLS, ours included.
      if (socket.destroyed) {
        watched.delete(socket)
        continue
      }
      let hung: boolean
      if (state.exchange.encrypted) {
        const counters = { bytesRead: socket.bytesRead, bytesWritten: socket.bytesWritten }
        const next = look(late ? { ...state.counted, waitingSince: undefined } : state.counted, counters, now, stallMs)
        state.counted = next.progress
        hung = next.hung
      } else {
        if (late) state.exchange.restartSilence(now)
        hung = state.exchange.hung(now, stallMs)
      }
      if (hung) {
        watched.delete(socket)
        socket.destroy(stalledSocketError(stallMs))
      }
    }
    if (watched.size === 0 && timer !== undefined) {
      clearInterval(timer)
      timer = undefined
    }
  }

  const watch = (socket: Socket) => {
    const state: Watched = { exchange: new ProtocolExchange(), counted: NEW_SOCKET }
    watched.set(socket, state)
    // Every byte postgres.js sends goes through write; every byte it reads arrives as data.
    const write = socket.write
    socket.write = function(this: Socket, chunk: unknown, ...rest: Array<unknown>) {
      if (chunk instanceof Uint8Array) state.exchange.sent(chunk, performance.now())
      return (write as (...args: Array<unknown>) => boolean).call(this, chunk, ...rest)
    } as Socket["write"]
    socket.on("data", (chunk: Buffer) => state.exchange.received(chunk, performance.now()))
    socket.once("close", () => watched.delete(socket))
    if (timer === undefined) {
      lastLook = performance.now()
      timer = setInterval(lookAll, everyMs)
      timer.unref()
    }
  }

  return {
    socket: (target) => {
      let socket: Socket
      if (target.path) {
        socket = connect(target.path)
      } else {
        const i = nextHost++ % target.host.length
        socket = connect(target.port[i] ?? target.port[0], target.host[i])
        // postgres.js names the server in its errors and uses the host for TLS's server name.
        Object.assign(socket, { host: target.host[i], port: target.port[i] ?? target.port[0] })
      }
      watch(socket)
      return socket
    },
    size: () => watched.size
  }
}
