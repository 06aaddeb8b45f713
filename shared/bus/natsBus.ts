import { Packr } from "msgpackr"
import { connect, Events, headers, type MsgHdrs, type NatsConnection } from "nats"
import type { Bus, BusState } from "./bus.ts"
import { receiver } from "../messages/receiver.ts"
import { type BusChange, ChangeEvent, subjectOf } from "./events.ts"

const SUBJECT_ALL = "ricochet.changes.>"
const packr = new Packr({ useRecords: false })
/** Unanswered pings before the client gives up on a connection and reconnects. */
const MAX_PINGS_OUT = 2

export const encodeEvent = (event: ChangeEvent): Uint8Array => packr.pack(event)

/** A header, not a field of the event: the message body stays exactly the ChangeEvent Schema. */
const CHANGED_AT = "Ricochet-Changed-At"

const headersOf = (change: BusChange): MsgHdrs => {
  const h = headers()
  h.set(CHANGED_AT, String(Math.round(change.changedAt)))
  return h
}

/** When the change was made, from a message's header; undefined when absent or not a time. */
export const changedAtOf = (h: MsgHdrs | undefined): number | undefined => {
  const text = h?.get(CHANGED_AT)
  if (!text || !/^\d{1,16}$/.test(text)) return undefined
  return Number(text)
}

export const receiveEvent = receiver("change bus", ChangeEvent)

/**
 * An event as received from NATS, or undefined when it is not one (logged and counted; the cache
 * TTL bounds what a lost event could leave stale).
 */
export const decodeEvent = (bytes: Uint8Array): ChangeEvent | undefined => {
  let message: unknown
  try {
    message = packr.unpack(bytes)
  } catch (error) {
    return receiveEvent.refuse(`not msgpack (${error instanceof Error ? error.message : String(error)})`)
  }
  return receiveEvent(message)
}

/**
 * How often to ping the server so that a dead one (its TCP connection still open, nothing
 * arriving) is noticed well within the engines' cache TTL: the client gives up after
 * MAX_PINGS_OUT unanswered pings, so within three intervals, a quarter of the TTL.
 */
export const pingIntervalFor = (cacheTtlMs: number): number => Math.min(5_000, Math.max(100, Math.floor(cacheTtlMs / 12)))

export interface NatsBusOptions {
  /** See pingIntervalFor; nats.js's default (2 minutes) notices a frozen server after 6. */
  readonly pingIntervalMs: number
}

/**
 * NATS core pub/sub: every engine subscribed receives every event. Events published while an
 * engine is disconnected are lost to it, which is why every reconnect resets its cache (whether
 * or not the disconnect was noticed first), and why it is told when the connection is lost.
 */
export const natsBus = async (url: string, name: string, options: NatsBusOptions): Promise<Bus> => {
  const nc: NatsConnection = await connect({
    servers: url,
    name,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    pingInterval: options.pingIntervalMs,
    maxPingOut: MAX_PINGS_OUT
  })
  const resetListeners = new Set<() => void>()
  const stateListeners = new Set<(state: BusState) => void>()
  const tell = (state: BusState) => {
    for (const listener of stateListeners) listener(state)
  }
  let connected = true
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect && connected) {
        connected = false
        // Noticed at once when the socket closes; a frozen server only after the unanswered
        // pings, so events may have stopped up to that long (and a timer's lateness) before.
        tell({ connected: false, since: Date.now() - (MAX_PINGS_OUT + 2) * options.pingIntervalMs })
      } else if (status.type === Events.Reconnect) {
        for (const reset of resetListeners) reset()
        connected = true
        tell({ connected: true })
      }
    }
  })()
  return {
    publish: async (changes) => {
      for (const change of changes) nc.publish(subjectOf(change.event), encodeEvent(change.event), { headers: headersOf(change) })
      // flush resolves once the server has seen everything published before it.
      await nc.flush()
    },
    subscribe: (onEvent, onReset) => {
      resetListeners.add(onReset)
      const subscription = nc.subscribe(SUBJECT_ALL, {
        callback: (error, message) => {
          if (error) return
          const event = decodeEvent(message.data)
          if (event === undefined) return
          try {
            onEvent(event, changedAtOf(message.headers))
          } catch (cause) {
            // The subscriber's failure must not end the subscription; the TTL bounds what it left stale.
            console.error(`change bus: applying a ${event.type} event failed`, cause)
          }
        }
      })
      return () => {
        resetListeners.delete(onReset)
        subscription.unsubscribe()
      }
    },
    onState: (listener) => {
      stateListeners.add(listener)
      return () => stateListeners.delete(listener)
    },
    isConnected: () => connected && !nc.isClosed(),
    close: async () => {
      await nc.drain().catch(() => nc.close())
    }
  }
}
