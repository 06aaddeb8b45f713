import type { BusChange, ChangeEvent } from "./events.ts"
import type { ClaimOutcome, LeaseRequest } from "./natsLease.ts"

/**
 * Whether events are reaching this process. While disconnected, `since` is the last moment the
 * bus is known to have delivered everything published (an estimate on the safe side: it may be
 * earlier than the real loss, never later), so a subscriber can bound how old its knowledge is.
 */
export type BusState = { readonly connected: true } | { readonly connected: false; readonly since: number }

/**
 * The change bus between control and the engines. Two implementations: NATS when NATS_URL is
 * set (several processes, every engine receives every event) and in-process for the embedded
 * default.
 */
export interface Bus {
  /** Resolves once the bus has taken the events; rejects if it could not (the caller retries). */
  readonly publish: (changes: ReadonlyArray<BusChange>) => Promise<void>
  /**
   * Delivers every event published from now on. `onReset` is called when events may have been
   * missed (every reconnect, whether or not the disconnect was noticed), so the subscriber drops
   * what it derived from earlier ones. `changedAt` is undefined when a publisher did not say
   * (or said something that is not a time).
   */
  readonly subscribe: (onEvent: (event: ChangeEvent, changedAt: number | undefined) => void, onReset: () => void) => () => void
  /** Connection changes, in order; a reconnect calls the subscribers' `onReset` before `connected`. */
  readonly onState: (listener: (state: BusState) => void) => () => void
  /** Whether the bus is connected now (control's /readyz); the in-process bus always is. */
  readonly isConnected: () => boolean
  /**
   * Holds a key among every process on the bus while this one runs (an engine's id), or says who
   * does. Absent where the bus reaches no other process (in-process, none). While the bus is not
   * reached yet the claim is granted, and made once it is: a holder found then is `onConflict`.
   */
  readonly claim?: (request: LeaseRequest) => Promise<ClaimOutcome>
  readonly close: () => Promise<void>
}

/** In-process bus: synchronous fan-out to the subscribers of this process; it never disconnects. */
export const memoryBus = (): Bus => {
  const subscribers = new Set<(event: ChangeEvent, changedAt: number) => void>()
  return {
    publish: async (changes) => {
      for (const { event, changedAt } of changes) for (const deliver of subscribers) deliver(event, changedAt)
    },
    subscribe: (onEvent) => {
      subscribers.add(onEvent)
      return () => subscribers.delete(onEvent)
    },
    onState: () => () => {},
    isConnected: () => true,
    close: async () => subscribers.clear()
  }
}

/**
 * No bus at all, for an engine run alone without NATS_URL: it hears of no change, so it is
 * disconnected from the start and its cache relies on the TTL alone (slug filters included).
 */
export const detachedBus = (): Bus => {
  const since = Date.now()
  return {
    publish: async () => {
      throw new Error("this process has no change bus (NATS_URL is not set)")
    },
    subscribe: () => () => {},
    isConnected: () => false,
    onState: (listener) => {
      listener({ connected: false, since })
      return () => {}
    },
    close: async () => {}
  }
}
