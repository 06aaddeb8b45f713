import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { Bus } from "../../shared/bus/bus.ts"
import type { ChangeEvent } from "../../shared/bus/events.ts"
import { natsBus } from "../../shared/bus/natsBus.ts"
import { eventually, removeDir, startNats, tempDir } from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/**
 * NATS with authentication, as compose.yaml runs it: real nats-servers of the test's own (JetStream
 * on, for the engines' id leases), one asking for a user and password, one for a token. NATS_URL
 * carries the credentials (`nats://user:password@host:port`, `nats://token@host:port`); with them
 * the bus connects, delivers and holds leases; without them, or wrong, it is refused and says so,
 * and no log line carries the secret.
 */

const PASSWORD = "p@ss:w/o%rd 1234"
const TOKEN = "s3cr3t-t0ken"

describe.each([
  ["a user and password", { user: "ricochet", pass: PASSWORD }, `ricochet:${encodeURIComponent(PASSWORD)}@`, `ricochet:${encodeURIComponent("wrong")}@`, PASSWORD],
  ["a token", { token: TOKEN }, `${TOKEN}@`, "wrong-token@", TOKEN]
] as const)("NATS asking for %s", (_what, auth, userinfo, wrongUserinfo, secret) => {
  let nats: Awaited<ReturnType<typeof startNats>>
  let dir: string
  const buses: Array<Bus> = []
  const urlWith = (credentials: string) => `nats://${credentials}127.0.0.1:${nats.port}`
  const open = async (credentials: string, name: string) => {
    const bus = await natsBus(urlWith(credentials), name, { pingIntervalMs: 500, connectTimeoutMs: 1_000 })
    buses.push(bus)
    return bus
  }

  beforeAll(async () => {
    dir = await tempDir("ricochet-nats-auth-")
    nats = await startNats(undefined, { jetStreamDir: dir, auth })
  })
  afterAll(async () => {
    for (const bus of buses) await bus.close()
    await nats?.stop()
    if (dir) await removeDir(dir)
  })

  it("connects with the credentials in NATS_URL, delivers events and holds a lease", async () => {
    const subscriber = await open(userinfo, "auth-subscriber")
    const publisher = await open(userinfo, "auth-publisher")
    expect(subscriber.isConnected()).toBe(true)
    expect(publisher.isConnected()).toBe(true)
    const received: Array<string> = []
    subscriber.subscribe((event) => {
      if (event.type === "link.deleted") received.push(event.slug)
    }, () => {})
    const event: ChangeEvent = { type: "link.deleted", id: "lnk_auth", host: "h.example", slug: "auth" }
    await eventually(async () => {
      await publisher.publish([{ event, changedAt: Date.now() }])
      await sleep(50)
      return received.includes("auth")
    }, 10_000, 50)

    const claim = await subscriber.claim!({ key: "engine.auth-test", holder: "subscriber", mayReplace: () => false, onConflict: () => {} })
    expect(claim.held).toBe(true)
    const second = await publisher.claim!({ key: "engine.auth-test", holder: "publisher", mayReplace: () => false, onConflict: () => {} })
    expect(second).toEqual({ held: false, by: "subscriber" })
    if (claim.held) await claim.release()
  })

  it.each([["without credentials", ""], ["with wrong ones", wrongUserinfo]])("is refused %s, and says so without the secret", async (_case, credentials) => {
    const lines: Array<string> = []
    const record = (...args: Array<unknown>) => void lines.push(args.map(String).join(" "))
    const warn = vi.spyOn(console, "warn").mockImplementation(record)
    const log = vi.spyOn(console, "log").mockImplementation(record)
    try {
      const bus = await open(credentials, "auth-refused")
      expect(bus.isConnected()).toBe(false)
      expect(lines.join("\n")).toMatch(/authorization/i)
    } finally {
      warn.mockRestore()
      log.mockRestore()
    }
    // The URL is logged as nats://user:[redacted]@… or nats://[redacted]@…
    if (credentials !== "") expect(lines.join("\n")).toContain("[redacted]@127.0.0.1")
    for (const line of lines) {
      for (const hidden of [secret, encodeURIComponent(secret), "wrong"]) expect(line).not.toContain(hidden)
    }
  })
})
