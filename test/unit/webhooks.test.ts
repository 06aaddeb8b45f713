import { describe, expect, it } from "vitest"
import { CLICKS_PER_EVENT, clickEventsOf } from "../../control/webhooks/ClickFeed.ts"
import { afterFailure, DISABLE_AFTER_MS, isDelivered, MAX_DELAY_MS, retryDelayMs, shouldDisable } from "../../control/webhooks/retry.ts"
import { newSecret, sign, signedHeaders } from "../../control/webhooks/signing.ts"
import { refuseTarget } from "../../control/webhooks/targetUrl.ts"

describe("webhook signing (Standard Webhooks)", () => {
  it("reproduces the specification's published test vector", () => {
    expect(sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}'))
      .toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
  })

  it("makes fresh 32-byte secrets and signs with the attempt's time", () => {
    const secret = newSecret()
    expect(secret).toMatch(/^whsec_/)
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32)
    expect(newSecret()).not.toBe(secret)
    const headers = signedHeaders(secret, "msg_1", "{}", new Date(1_700_000_000_500))
    expect(headers).toEqual({
      "content-type": "application/json",
      "webhook-id": "msg_1",
      "webhook-timestamp": "1700000000",
      "webhook-signature": sign(secret, "msg_1", 1_700_000_000, "{}")
    })
  })
})

describe("webhook target URLs", () => {
  it.each<readonly [string, boolean, boolean]>([
    // url, loopback allowed, accepted
    ["https://hooks.example.com/in", false, true],
    ["https://hooks.example.com:8443/in?x=1", false, true],
    ["https://93.184.216.34/in", false, true],
    ["https://[2606:2800:220:1::1]/in", false, true],
    ["http://hooks.example.com/in", false, false],
    ["ftp://hooks.example.com/in", false, false],
    ["https://user:secret@hooks.example.com/in", false, false],
    ["https://localhost/in", false, false],
    ["https://api.localhost/in", false, false],
    ["https://printer.local/in", false, false],
    ["https://metadata.google.internal/in", false, false],
    ["https://intranet/in", false, false],
    ["https://127.0.0.1/in", false, false],
    ["https://10.0.0.5/in", false, false],
    ["https://172.16.3.4/in", false, false],
    ["https://172.32.0.1/in", false, true],
    ["https://192.168.1.1/in", false, false],
    ["https://169.254.169.254/latest/meta-data", false, false],
    ["https://100.64.0.1/in", false, false],
    ["https://0.0.0.0/in", false, false],
    ["https://[::1]/in", false, false],
    ["https://[fd12::1]/in", false, false],
    ["https://[fe80::1]/in", false, false],
    ["https://[::ffff:10.0.0.1]/in", false, false],
    ["https://[::ffff:8.8.8.8]/in", false, true],
    ["http://[::ffff:127.0.0.1]:9000/in", true, true],
    ["http://127.0.0.1:9000/in", false, false],
    ["http://127.0.0.1:9000/in", true, true],
    ["http://localhost:9000/in", true, true],
    ["http://[::1]:9000/in", true, true],
    ["http://10.0.0.5/in", true, false],
    ["http://hooks.example.com/in", true, false]
  ])("%s (loopback allowed: %s) accepted: %s", (url, allowLoopback, accepted) => {
    expect(refuseTarget(url, allowLoopback) === undefined).toBe(accepted)
  })
})

describe("webhook retries", () => {
  it("doubles from the base up to an hour, with at most 10 % jitter", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 5_000, 0))).toEqual([5_000, 10_000, 20_000, 40_000])
    expect(retryDelayMs(30, 5_000, 0)).toBe(MAX_DELAY_MS)
    expect(retryDelayMs(1, 5_000, 1)).toBe(5_500)
  })

  it("retries within 24 hours of the event, then gives up", () => {
    const created = new Date("2030-01-01T00:00:00Z")
    expect(afterFailure(created, 1, created, 5_000, 0)).toEqual({ kind: "retry", at: new Date("2030-01-01T00:00:05Z") })
    expect(afterFailure(created, 20, new Date("2030-01-01T22:30:00Z"), 5_000, 0)).toEqual({ kind: "retry", at: new Date("2030-01-01T23:30:00Z") })
    expect(afterFailure(created, 21, new Date("2030-01-01T23:30:00Z"), 5_000, 0)).toEqual({ kind: "abandon" })
  })

  it("disables a webhook after 3 days of failures without a success", () => {
    const now = new Date("2030-01-04T00:00:00Z")
    expect(shouldDisable(null, now)).toBe(false)
    expect(shouldDisable(new Date(now.getTime() - DISABLE_AFTER_MS + 1), now)).toBe(false)
    expect(shouldDisable(new Date(now.getTime() - DISABLE_AFTER_MS), now)).toBe(true)
  })

  it.each([[200, true], [204, true], [299, true], [301, false], [302, false], [400, false], [500, false]])("HTTP %i delivered: %s", (status, ok) => {
    expect(isDelivered(status)).toBe(ok)
  })
})

describe("link.clicked events of a click file", () => {
  const click = (linkId: string, timestamp: number, domain = "go.example.com") => ({
    timestamp, workspaceId: "ws_1", linkId, domain, slug: `s-${linkId}`, url: "https://example.com/", audience: "people" as const,
    country: "DE", city: null, device: "desktop" as const, browser: "Firefox", os: "macOS", refererHost: null
  })

  it("groups clicks by link in click order, in events of at most CLICKS_PER_EVENT", () => {
    const rows = [
      click("a", 1), click("b", 2), ...Array.from({ length: CLICKS_PER_EVENT + 1 }, (_, i) => click("a", 10 + i))
    ]
    const events = clickEventsOf(rows, new Map([["go.example.com", "dom_1"]]))
    expect(events.map((e) => [e.linkId, (e.data as any).clicks.length])).toEqual([["a", CLICKS_PER_EVENT], ["a", 2], ["b", 1]])
    expect(events[0]).toMatchObject({ type: "link.clicked", workspaceId: "ws_1", orderKey: "link:a", domainId: "dom_1", occurredAt: new Date(1) })
    expect((events[0].data as any).link).toEqual({ id: "a", domain: "go.example.com", slug: "s-a" })
    expect((events[0].data as any).clicks[0]).toEqual({
      timestamp: new Date(1).toISOString(), url: "https://example.com/", audience: "people", country: "DE", city: null,
      device: "desktop", browser: "Firefox", os: "macOS", referer: null
    })
    expect(clickEventsOf([click("c", 5, "unknown.example")], new Map())[0].domainId).toBeNull()
  })
})
