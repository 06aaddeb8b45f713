import { describe, expect, it } from "vitest"
import { forwardedClient } from "../../shared/http/forwarded.ts"

describe("forwardedClient: the address the trusted proxy appended to X-Forwarded-For", () => {
  const rows: ReadonlyArray<readonly [header: string | undefined, expected: string | undefined]> = [
    [undefined, undefined],
    ["", undefined],
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    // A client that sends its own header cannot choose its address: the proxy's entry is last.
    ["127.0.0.1, 203.0.113.7", "203.0.113.7"],
    ["1.1.1.1,2.2.2.2,198.51.100.4", "198.51.100.4"],
    ["2001:db8::1", "2001:db8::1"],
    ["203.0.113.7,", undefined],
    ["203.0.113.7, ", undefined]
  ]
  it.each(rows)("%j -> %j", (header, expected) => {
    expect(forwardedClient(header)).toBe(expected)
  })
})
