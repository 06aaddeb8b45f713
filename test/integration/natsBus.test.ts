import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Bus, BusState } from "../../shared/bus/bus.ts"
import type { ChangeEvent } from "../../shared/bus/events.ts"
import { natsBus } from "../../shared/bus/natsBus.ts"
import { eventually, startNats } from "../support/processes.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"
import { sleep } from "../support/time.ts"

/**
 * The NATS bus against a real nats-server of the test's own, the subscriber behind a TCP proxy so
 * the server can also seem to freeze (connection open, nothing arriving). What the engine relies
 * on: it is told when events stop (and since when), and every reconnect resets it.
 */
describe("natsBus connection state", () => {
  const PING_MS = 100
  let nats: Awaited<ReturnType<typeof startNats>>
  let proxy: TcpProxy
  let subscriber: Bus
  let publisher: Bus
  const states: Array<BusState & { at: number }> = []
  const received: Array<string> = []
  const changedAts = new Map<string, number | undefined>()
  let resets = 0

  beforeAll(async () => {
    nats = await startNats()
    proxy = await startTcpProxy({ host: "127.0.0.1", port: nats.port })
    subscriber = await natsBus(proxy.url("nats://127.0.0.1:{port}"), "test-subscriber", { pingIntervalMs: PING_MS })
    publisher = await natsBus(nats.url, "test-publisher", { pingIntervalMs: PING_MS })
    subscriber.subscribe((event, changedAt) => {
      if (event.type === "link.deleted") {
        received.push(event.slug)
        changedAts.set(event.slug, changedAt)
      }
    }, () => resets++)
    subscriber.onState((state) => states.push({ ...state, at: Date.now() }))
  })
  afterAll(async () => {
    await subscriber?.close()
    await publisher?.close()
    await proxy?.close()
    await nats?.stop()
  })

  const deleted = (slug: string): ChangeEvent => ({ type: "link.deleted", id: `lnk_${slug}`, host: "h.example", slug })
  const CHANGED_AT = 1_795_000_000_123
  const lastState = () => states.at(-1)
  /** Publishes until the subscriber receives (the publisher may itself be reconnecting). */
  const delivered = (slug: string) =>
    eventually(async () => {
      await publisher.publish([{ event: deleted(slug), changedAt: CHANGED_AT }])
      await sleep(50)
      return received.includes(slug)
    }, 10_000, 50)

  it("delivers events while connected", async () => {
    await delivered("first")
    expect(states).toEqual([])
    // The change's time crosses in a header, the body staying the event alone.
    expect(changedAts.get("first")).toBe(CHANGED_AT)
  })

  it("a stopped server: disconnected at once, then a reset and connected when it is back", async () => {
    const before = resets
    const stoppedAt = Date.now()
    await nats.stop()
    await eventually(async () => lastState()?.connected === false, 10_000)
    const lost = lastState() as { connected: false; since: number; at: number }
    expect(lost.at - stoppedAt).toBeLessThan(1_000)
    expect(lost.since).toBeLessThanOrEqual(stoppedAt)
    nats = await startNats(nats.port)
    await eventually(async () => lastState()?.connected === true, 10_000)
    expect(resets).toBe(before + 1)
    await delivered("after-restart")
  })

  it("a frozen server (connection open, nothing arriving) is noticed after the unanswered pings", async () => {
    const before = resets
    const frozenAt = Date.now()
    proxy.hang()
    await eventually(async () => lastState()?.connected === false, 5_000)
    const lost = lastState() as { connected: false; since: number; at: number }
    // Three ping intervals, with slack for a busy machine; nats.js's default would take minutes.
    expect(lost.at - frozenAt).toBeLessThan(2_000)
    expect(lost.since).toBeLessThanOrEqual(frozenAt)
    await proxy.restore()
    await eventually(async () => lastState()?.connected === true, 10_000)
    expect(resets).toBe(before + 1)
    await delivered("after-freeze")
  })

  it("a quick restart resets on the reconnect", async () => {
    const before = resets
    await nats.stop()
    nats = await startNats(nats.port)
    await eventually(async () => resets === before + 1 && lastState()?.connected === true, 10_000)
    await delivered("after-quick-restart")
  })
})
