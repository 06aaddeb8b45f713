import { describe, expect, it } from "vitest"
import { hostKind, requestHost } from "../../engine/http/requestHost.ts"

/** engine/http/requestHost.ts: the host a Host header names, and what an uncached one can be. */

describe("requestHost", () => {
  it.each([
    ["go.example.com", "go.example.com"],
    ["Go.Example.COM", "go.example.com"],
    ["go.example.com:8080", "go.example.com"],
    ["GO.EXAMPLE.COM:443", "go.example.com"],
    ["go.example.com.", "go.example.com"],
    ["go.example.com.:8080", "go.example.com"],
    ["go.example.com:", "go.example.com"],
    ["[::1]", "[::1]"],
    ["[::1]:8080", "[::1]"],
    ["[2001:DB8::1]:443", "[2001:db8::1]"],
    ["127.0.0.1:8080", "127.0.0.1"],
    ["", ""],
    [".", ""],
    [":8080", ":8080"],
    ["a:b:c", "a:b"]
  ])("%j → %j", (header, expected) => {
    expect(requestHost(header)).toBe(expected)
  })

  it("the usual lower-case host without port is the header itself", () => {
    const header = ["go.", "example.com"].join("")
    expect(requestHost(header)).toBe(header)
  })
})

describe("hostKind", () => {
  it.each([
    ["go.example.com", "name"],
    ["my-workspace.localhost", "name"],
    ["localhost", "name"],
    ["xn--bcher-kva.example", "name"],
    ["_dmarc.example.com", "name"],
    ["127.0.0.1", "name"],
    [`${"a".repeat(63)}.example`, "name"],
    [`${"a".repeat(64)}.example`, "invalid"],
    [`${"a.".repeat(126)}ab`, "invalid"],
    ["[::1]", "address"],
    ["[2001:db8::1]", "address"],
    ["[::ffff:127.0.0.1]", "address"],
    ["", "invalid"],
    [":8080", "invalid"],
    ["a:b", "invalid"],
    ["exa mple.com", "invalid"],
    ["example..com", "invalid"],
    [".example.com", "invalid"],
    ["bücher.example", "invalid"],
    ["h\u00c3\u00a9", "invalid"],
    ["evil.com/x", "invalid"],
    ["user@evil.com", "invalid"],
    ["a\u0000b", "invalid"],
    ["[not-an-ip]", "invalid"],
    ["[::1", "invalid"]
  ])("%j is %s", (host, kind) => {
    expect(hostKind(host)).toBe(kind)
  })
})
