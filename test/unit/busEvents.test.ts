import { Packr } from "msgpackr"
import { afterEach, describe, expect, it, vi } from "vitest"
import type { ChangeEvent } from "../../shared/bus/events.ts"
import { decodeEvent, encodeEvent, receiveEvent } from "../../shared/bus/natsBus.ts"
import { refusedMessages } from "../../shared/messages/receiver.ts"
import { linkRecord } from "../support/linkRecord.ts"

/** What an engine receives from NATS is decoded against ChangeEvent: the rest is refused and counted, never thrown. */
describe("change events received from the bus", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })
  const packr = new Packr({ useRecords: false })
  const domain = { id: "dom_1", workspaceId: "ws_1", host: "a.localhost", status: "verified", rootRedirectUrl: null, notFoundUrl: null, expiredUrl: null } as const

  it.each<[string, ChangeEvent]>([
    ["link.upserted", { type: "link.upserted", link: linkRecord() }],
    ["link.deleted", { type: "link.deleted", id: "lnk_1", host: "a.localhost", slug: "x" }],
    ["domain.upserted", { type: "domain.upserted", domain }],
    ["domain.deleted", { type: "domain.deleted", id: "dom_1", host: "a.localhost" }]
  ])("%s goes through as it was sent", (_, event) => {
    const before = receiveEvent.refused()
    expect(decodeEvent(encodeEvent(event))).toEqual(event)
    expect(receiveEvent.refused()).toBe(before)
  })

  it.each<[string, Uint8Array]>([
    ["bytes that are not msgpack", Uint8Array.from([0xc1])],
    ["an unknown type", packr.pack({ type: "link.exploded", id: "lnk_1" })],
    ["a delete without its slug", packr.pack({ type: "link.deleted", id: "lnk_1", host: "a.localhost" })],
    ["a link with a field of the wrong type", packr.pack({ type: "link.upserted", link: { ...linkRecord(), redirectType: 303 } })],
    ["a link missing a field", packr.pack({ type: "link.upserted", link: { ...linkRecord(), passQuery: undefined } })],
    ["a domain with an unknown status", packr.pack({ type: "domain.upserted", domain: { ...domain, status: "maybe" } })],
    ["not an object", packr.pack("link.deleted")]
  ])("%s: refused, logged and counted", (_, bytes) => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {})
    const before = receiveEvent.refused()
    expect(decodeEvent(bytes)).toBeUndefined()
    expect(receiveEvent.refused()).toBe(before + 1)
    expect(refusedMessages()["change bus"]).toBe(receiveEvent.refused())
    // One log line per interval at most, so only the first refusal of a run is certain to be logged.
    if (before === 0) expect(errors).toHaveBeenCalledWith(expect.stringMatching(/^change bus: refused 1 message/))
  })
})
