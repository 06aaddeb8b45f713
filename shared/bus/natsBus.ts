import { Packr } from "msgpackr"
import { connect, type NatsConnection } from "nats"
import type { Bus } from "./bus.ts"
import { type ChangeEvent, subjectOf } from "./events.ts"

const SUBJECT_ALL = "ricochet.changes.>"
const packr = new Packr({ useRecords: false })

export const encodeEvent = (event: ChangeEvent): Uint8Array => packr.pack(event)
export const decodeEvent = (bytes: Uint8Array): ChangeEvent => packr.unpack(bytes) as ChangeEvent

/**
 * NATS core pub/sub: every engine subscribed receives every event. Events published while an
 * engine is disconnected are lost to it, which is why a reconnect resets its cache.
 */
export const natsBus = async (url: string, name: string): Promise<Bus> => {
  const nc: NatsConnection = await connect({
    servers: url,
    name,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true
  })
  const resetListeners = new Set<() => void>()
  let connected = true
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect") connected = false
      if (status.type === "reconnect") {
        connected = true
        for (const reset of resetListeners) reset()
      }
    }
  })()
  return {
    publish: async (events) => {
      for (const event of events) nc.publish(subjectOf(event), encodeEvent(event))
      // flush resolves once the server has seen everything published before it.
      await nc.flush()
    },
    subscribe: (onEvent, onReset) => {
      resetListeners.add(onReset)
      const subscription = nc.subscribe(SUBJECT_ALL, {
        callback: (error, message) => {
          if (error) return
          try {
            onEvent(decodeEvent(message.data))
          } catch {
            // A message we cannot read is dropped; the cache TTL bounds what it could leave stale.
          }
        }
      })
      return () => {
        resetListeners.delete(onReset)
        subscription.unsubscribe()
      }
    },
    isConnected: () => connected && !nc.isClosed(),
    close: async () => {
      await nc.drain().catch(() => nc.close())
    }
  }
}
