import type { ChangeEvent } from "./events.ts"

/**
 * The change bus between control and the engines. Two implementations: NATS when NATS_URL is
 * set (several processes, every engine receives every event) and in-process for the embedded
 * default.
 */
export interface Bus {
  /** Resolves once the bus has taken the events; rejects if it could not (the caller retries). */
  readonly publish: (events: ReadonlyArray<ChangeEvent>) => Promise<void>
  /**
   * Delivers every event published from now on. `onReset` is called when events may have been
   * missed (a reconnect), so the subscriber drops what it derived from earlier ones.
   */
  readonly subscribe: (onEvent: (event: ChangeEvent) => void, onReset: () => void) => () => void
  /** Whether the bus is connected now (control's /readyz); the in-process bus always is. */
  readonly isConnected: () => boolean
  readonly close: () => Promise<void>
}

/** In-process bus: synchronous fan-out to the subscribers of this process. */
export const memoryBus = (): Bus => {
  const subscribers = new Set<(event: ChangeEvent) => void>()
  return {
    publish: async (events) => {
      for (const event of events) for (const deliver of subscribers) deliver(event)
    },
    subscribe: (onEvent) => {
      subscribers.add(onEvent)
      return () => subscribers.delete(onEvent)
    },
    isConnected: () => true,
    close: async () => subscribers.clear()
  }
}
