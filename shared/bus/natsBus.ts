import { Packr } from "msgpackr"
import { connect, Events, headers, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from "nats"
import type { Bus, BusState } from "./bus.ts"
import { type ClaimOutcome, holdLease, leaseBucket } from "./natsLease.ts"
import { natsServer } from "./natsServer.ts"
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
  /** How long one attempt to reach the server may take (the start waits for the first one at most this long). */
  readonly connectTimeoutMs?: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * NATS core pub/sub: every engine subscribed receives every event. Events published while an
 * engine is disconnected are lost to it, which is why every reconnect resets its cache (whether
 * or not the disconnect was noticed first), and why it is told when the connection is lost.
 *
 * A server that does not answer does not hold up the start: after one attempt the bus starts
 * disconnected (the process serves, degraded) and keeps connecting in the background; the first
 * connection then counts as a reconnect. Losing and regaining the server is logged once each.
 */
export const natsBus = async (natsUrl: string, name: string, options: NatsBusOptions): Promise<Bus> => {
  // Credentials in the URL go as options; the logs name the server without them.
  const { servers, credentials, shown: url } = natsServer(natsUrl)
  const connectTimeoutMs = options.connectTimeoutMs ?? 2_000
  const resetListeners = new Set<() => void>()
  const stateListeners = new Set<(state: BusState) => void>()
  const subscriptions = new Set<{ readonly onMessage: (error: unknown, message: Msg) => void; current?: Subscription }>()
  const tell = (state: BusState) => {
    for (const listener of stateListeners) listener(state)
  }
  let nc: NatsConnection | undefined
  let connected = false
  let closed = false
  const attempt = () =>
    connect({
      servers,
      ...credentials,
      name,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      timeout: connectTimeoutMs,
      pingInterval: options.pingIntervalMs,
      maxPingOut: MAX_PINGS_OUT
    })

  const watch = async (conn: NatsConnection) => {
    for await (const status of conn.status()) {
      if (status.type === Events.Disconnect && connected) {
        connected = false
        console.warn(`change bus: lost NATS at ${url}; reconnecting (changes wait in the outbox, engines serve what they cached)`)
        // Noticed at once when the socket closes; a frozen server only after the unanswered
        // pings, so events may have stopped up to that long (and a timer's lateness) before.
        tell({ connected: false, since: Date.now() - (MAX_PINGS_OUT + 2) * options.pingIntervalMs })
      } else if (status.type === Events.Reconnect) {
        for (const reset of resetListeners) reset()
        connected = true
        console.log(`change bus: NATS at ${url} is back`)
        tell({ connected: true })
      }
    }
  }

  const attach = (conn: NatsConnection, late: boolean) => {
    nc = conn
    for (const subscription of subscriptions) subscription.current = conn.subscribe(SUBJECT_ALL, { callback: subscription.onMessage })
    void watch(conn)
    connected = true
    if (late) {
      // Events published before now never reached this process.
      for (const reset of resetListeners) reset()
      console.log(`change bus: connected to NATS at ${url}`)
      tell({ connected: true })
    }
  }

  const connectInBackground = async () => {
    for (let failures = 1; !closed; failures++) {
      await sleep(Math.min(5_000, 250 * 2 ** failures))
      if (closed) return
      const conn = await attempt().catch(() => undefined)
      if (conn === undefined) continue
      if (closed) return void conn.close()
      return attach(conn, true)
    }
  }

  const first = await attempt().catch((error: unknown) => error instanceof Error ? error : new Error(String(error)))
  if (first instanceof Error) {
    console.warn(`change bus: NATS at ${url} does not answer (${first.message}); starting without it and connecting in the background`)
    void connectInBackground()
  } else {
    attach(first, false)
  }
  const startedAt = Date.now()

  return {
    publish: async (changes) => {
      if (nc === undefined) throw new Error(`not connected to NATS at ${url} yet`)
      for (const change of changes) nc.publish(subjectOf(change.event), encodeEvent(change.event), { headers: headersOf(change) })
      // flush resolves once the server has seen everything published before it.
      await nc.flush()
    },
    subscribe: (onEvent, onReset) => {
      resetListeners.add(onReset)
      const subscription: { onMessage: (error: unknown, message: Msg) => void; current?: Subscription } = {
        onMessage: (error, message) => {
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
      }
      subscriptions.add(subscription)
      if (nc !== undefined) subscription.current = nc.subscribe(SUBJECT_ALL, { callback: subscription.onMessage })
      return () => {
        resetListeners.delete(onReset)
        subscriptions.delete(subscription)
        subscription.current?.unsubscribe()
      }
    },
    onState: (listener) => {
      stateListeners.add(listener)
      if (!connected) listener({ connected: false, since: startedAt })
      return () => stateListeners.delete(listener)
    },
    isConnected: () => connected && nc !== undefined && !nc.isClosed(),
    claim: async (request) => {
      // Granted until the bus is reached; then claimed for real, a holder found then is a conflict.
      const claimOn = async (conn: NatsConnection): Promise<ClaimOutcome> => {
        const kv = await leaseBucket(conn)
        return kv === undefined ? { held: true, release: async () => {} } : holdLease(kv, request)
      }
      if (nc !== undefined) return claimOn(nc)
      let release: () => Promise<void> = async () => {}
      let released = false
      void (async () => {
        while (nc === undefined && !closed && !released) await sleep(250)
        if (nc === undefined || released) return
        const outcome = await claimOn(nc).catch(() => undefined)
        if (outcome === undefined) return
        if (outcome.held) release = outcome.release
        else request.onConflict(outcome.by)
      })()
      return {
        held: true,
        release: async () => {
          released = true
          await release()
        }
      }
    },
    close: async () => {
      closed = true
      await nc?.drain().catch(() => nc?.close())
    }
  }
}
