import { Result, Schema } from "effect"

/** Messages refused per boundary since the process started: what a status page or a test reads. */
const refusedCounts = new Map<string, number>()

export const refusedMessages = (): Readonly<Record<string, number>> => Object.fromEntries(refusedCounts)

/** A sender that keeps sending bad messages must not flood the log: one line per boundary per interval. */
const LOG_INTERVAL_MS = 10_000

export interface Receiver<A> {
  /**
   * The message decoded, or undefined when it does not match the Schema (logged and counted);
   * `about` names it in the log (an outbox row's id).
   */
  (message: unknown, about?: string): A | undefined
  /** Refuses a message that could not even be read (bytes that do not unpack), logged and counted alike. */
  readonly refuse: (reason: string) => undefined
  /** Messages this boundary refused since the process started. */
  readonly refused: () => number
}

/**
 * The decoder at one end of a process or thread boundary (bus, outbox, click writer): what
 * arrives is checked against the Schema both ends share before anything trusts it by its type.
 * A message that does not match is refused, logged and counted, never thrown: a sender of
 * another version, or a bug, must not take the receiver down with it.
 */
export const receiver = <S extends Schema.ConstraintDecoder<unknown>>(boundary: string, schema: S): Receiver<S["Type"]> => {
  const decode = Schema.decodeUnknownResult(schema)
  let lastLog = -Infinity
  let unlogged = 0
  const refuse = (reason: string): undefined => {
    refusedCounts.set(boundary, (refusedCounts.get(boundary) ?? 0) + 1)
    unlogged++
    const now = Date.now()
    if (now - lastLog >= LOG_INTERVAL_MS) {
      console.error(`${boundary}: refused ${unlogged} message(s); the latest: ${reason}`)
      lastLog = now
      unlogged = 0
    }
    return undefined
  }
  const receive = (message: unknown, about?: string): S["Type"] | undefined => {
    const result = decode(message)
    if (Result.isSuccess(result)) return result.success
    return refuse(about === undefined ? result.failure.message : `${about}: ${result.failure.message}`)
  }
  return Object.assign(receive, { refuse, refused: () => refusedCounts.get(boundary) ?? 0 })
}
