const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** Resolves in the check phase, after libuv's next poll phase. */
const afterPoll = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * How long a stopping engine server answers what reaches it before it closes its connections
 * anyway (a client that keeps sending on a kept-alive connection, an answer stuck on the
 * database); within the 30 s a container gets to stop (compose.yaml's stop_grace_period).
 */
export const STOP_DEADLINE_MS = 10_000

/**
 * How long a stopping server must see nothing happen before it closes its connections: no
 * request arriving, no answer given. Requests a client wrote before the signal are in the socket's
 * buffer by then (or on the wire, for a few milliseconds), and requests pipelined behind an
 * answer that waited are read once that answer is written, which counts as activity.
 */
export const QUIET_MS = 250

/**
 * Resolves after two polls of the sockets (setImmediate runs after libuv's poll phase, where
 * uWS.js accepts and reads): connections the kernel had completed by the time it was called,
 * waiting in a listening socket's backlog, have been accepted, so that closing that socket next
 * does not reset them with requests already written on them. Two, as this may be called from
 * inside a poll (a handler) whose list of ready sockets was taken before.
 */
export const afterTwoPolls = async (): Promise<void> => {
  await afterPoll()
  await afterPoll()
}

export interface Activity {
  /** Grows with every request received and every answer given. */
  readonly count: () => number
  /** Whether answers are still pending. */
  readonly busy: () => boolean
}

/**
 * Resolves true once the server has been quiet (QUIET_MS with no activity, nothing pending), or
 * false at `deadline` (epoch ms). Each check comes after a poll of the sockets (setImmediate runs
 * after libuv's poll phase, where uWS.js reads), so bytes that had arrived before the check are
 * read and counted first, however late a busy event loop ran the timer.
 */
export const untilQuiet = async (activity: Activity, deadline: number, quietMs = QUIET_MS): Promise<boolean> => {
  let seen = activity.count()
  for (;;) {
    const left = deadline - Date.now()
    if (left <= 0) return false
    await sleep(Math.min(quietMs, left))
    await afterPoll()
    const now = activity.count()
    if (now === seen && !activity.busy()) return true
    seen = now
  }
}
